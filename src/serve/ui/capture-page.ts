import type { ArchivedPage, CaptureTime } from '../../storage/reader/index.js';
import { captureOf, nearestCapture } from '../replay/find-capture.js';
import { REPLAY_SANDBOX, replayFramePath } from '../replay-frame.js';
import { captureTimestamp } from '../replay-url.js';
import { html } from './html.js';
import { captureHref, formatBytes, timeTag } from './format.js';
import { markdownSection } from './capture-markdown.js';
import { screenshotHref, shownScreenshot } from './screenshot-image.js';
import { addressesOf, UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const SOURCE_SHOWN_BYTES = 256 * 1024;
const LINKS_SHOWN = 500;
const TEXT_TYPE = /^(text\/|application\/(xhtml\+xml|xml|json|javascript|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml)/i;

/** A capture's timestamp as the UI's links carry it: 1 to 14 digits, as on the replay origin. */
const TIMESTAMP = /^\d{1,14}$/;

interface Selected {
  page: ArchivedPage;
  /** Every capture of the URL, oldest first. */
  times: CaptureTime[];
  selected: CaptureTime;
}

/** The capture a request names (`?url=`, and `&ts=` for the one nearest that time, else the latest), or a 400/404 saying why not. */
function selectedCapture(context: UiContext, params: URLSearchParams): Selected {
  const url = params.get('url');
  if (!url) throw new UiHttpError(400, 'name the archived URL: /capture?url=https://example.com/');
  const ts = params.get('ts');
  if (ts !== null && !TIMESTAMP.test(ts))
    throw new UiHttpError(400, `ts must be a capture's timestamp (YYYYMMDDhhmmss), got ${ts.slice(0, 40)}`);
  const times = context.archive.captureTimes(url);
  const selected = ts === null ? times.find((time) => time.latest) : nearestCapture(times, ts.padEnd(14, '0'));
  const page = selected && captureOf(context.archive, url, selected);
  if (!selected || !page) throw new UiHttpError(404, `${url} is not archived (no response stored for it)`);
  return { page, times, selected };
}

/** The archived capture a request names (`?url=`, `&ts=`), or a 400/404 saying why not. */
export function requestedCapture(context: UiContext, params: URLSearchParams): ArchivedPage {
  return selectedCapture(context, params).page;
}

/** Each capture against the one before it: what a re-crawl found. */
function changeMark(time: CaptureTime, before: CaptureTime | undefined): string {
  if (time.revalidated) return '304 not modified';
  if (!before) return 'first';
  return time.sha256 === before.sha256 && time.status === before.status ? 'unchanged' : 'changed';
}

/** The URL's captures, oldest first, each linking to its own page; the one shown is marked. */
function timeline(url: string, times: readonly CaptureTime[], selected: CaptureTime) {
  return html`<h2>Captures (${times.length})</h2>
<ol id="captures">${times.map((time, i) => {
    const mark = changeMark(time, times[i - 1]);
    const href = `${captureHref(url)}&ts=${captureTimestamp(time.fetchedAt)}`;
    const current = time === selected;
    return html`<li data-change="${mark}"${current ? html` class="selected" aria-current="true"` : ''}><a href="${href}">crawl ${time.crawl} · ${timeTag(time.fetchedAt)} · ${time.status} · ${mark}${time.latest ? ' · latest' : ''}</a>${mark === 'changed' && times[i - 1]!.crawl !== time.crawl ? html` <a class="what-changed" href="/changes?${new URLSearchParams({ url, from: String(times[i - 1]!.crawl), to: String(time.crawl) }).toString()}">what changed</a>` : ''}</li>\n`;
  })}</ol>`;
}

function decode(body: Buffer, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** A stored header block: its bytes as latin1, each byte one character, as HTTP has them. */
const headerBlock = (bytes: Buffer | null) => (bytes ? bytes.toString('latin1') : null);

/** The capture's screenshot, when a browser crawl stored one: the image (served by /screenshot), or why it is not shown. */
function screenshotSection(context: UiContext, page: ArchivedPage, timestamp: string) {
  const stored = context.archive.screenshot(page.url, page.fetchedAt);
  if (!stored) return '';
  const shown = shownScreenshot(stored);
  const href = screenshotHref(page.url, timestamp);
  return html`<h2>Screenshot</h2>
${
  'refused' in shown
    ? html`<p class="muted" id="screenshot-refused">A screenshot is stored with the type "${shown.refused}", which is not an image type crawlite shows.</p>`
    : html`<p><a href="${href}" target="_blank" rel="noopener"><img id="screenshot" src="${href}" alt="the page as a browser rendered it when it was crawled" loading="lazy"></a></p>`
}
`;
}

/** `/capture?url=[&ts=]`: one capture, the URL's timeline, its request, its links both ways, its source and its replay. */
export function capturePage(context: UiContext, params: URLSearchParams): UiPage {
  const { page, times, selected } = selectedCapture(context, params);
  const timestamp = captureTimestamp(page.fetchedAt);
  const replaySrc = addressesOf(context).replayUrl(page.url, timestamp);
  // Both views are UI pages holding the capture in the sandboxed frame: never a replay document of its own.
  const replayHref = replayFramePath(page.url, timestamp);
  const rawBodyHref = replayFramePath(page.url, timestamp, 'id_');
  const downloadHref = `/raw?url=${encodeURIComponent(page.url)}${selected.latest ? '' : `&ts=${timestamp}`}`;
  const outlinks = [...take(context.archive.links(page.url), LINKS_SHOWN)];
  const inlinks = context.facts.linksTo(page.url, LINKS_SHOWN);
  const responseHeaders =
    headerBlock(page.rawHeaders) ??
    Object.entries(page.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  // A 304's wire columns are its own; its status column is the confirmed capture's.
  const statusLine = `${page.httpVersion ?? 'HTTP/1.1'} ${page.revalidated ? 304 : page.status} ${page.reason ?? ''}`.trimEnd();
  const isText = page.contentType !== null && TEXT_TYPE.test(page.contentType);
  const source = isText ? decode(page.body.subarray(0, SOURCE_SHOWN_BYTES), page.charset) : undefined;
  const body = html`<h1 id="capture-url">${page.url}</h1>
<p>${page.title ? html`<strong id="capture-title">${page.title}</strong> · ` : ''}<span id="capture-status">${page.status}</span> · ${page.contentType ?? 'no content type'} · ${formatBytes(page.size)} · fetched ${timeTag(page.fetchedAt)} · ${page.kind}, depth ${page.depth}</p>
${selected.latest ? '' : html`<p class="muted" id="earlier-capture">An earlier capture (crawl ${selected.crawl}): links out and in are the latest capture's.</p>\n`}${page.revalidated ? html`<p class="muted" id="not-modified">Answered 304 Not Modified: the content is that of the capture it confirmed, the response headers are the 304's.</p>\n` : ''}${times.length > 1 ? timeline(page.url, times, selected) : ''}
<p><a id="download" href="${downloadHref}">download the body</a> · <a id="raw-body" href="${rawBodyHref}" target="_blank" rel="noopener">body as captured</a> · <a id="open-replay" href="${replayHref}" target="_blank" rel="noopener">open the replay</a></p>
${screenshotSection(context, page, timestamp)}<h2>Replay</h2>
<iframe id="replay" src="${replaySrc}" sandbox="${REPLAY_SANDBOX}" referrerpolicy="no-referrer" title="replay of ${page.url}"></iframe>
<h2>Response</h2>
<pre id="response-headers">${statusLine}\n${responseHeaders}</pre>
<h2>Request</h2>
${
  page.requestMethod
    ? html`<p>${page.requestMethod} <code>${page.requestTarget ?? ''}</code>${page.remoteIp ? html` to ${page.remoteIp}` : ''}${page.startedAt ? html`, started ${timeTag(page.startedAt)}` : ''}</p>
<pre id="request-headers">${headerBlock(page.requestHeaders) ?? ''}</pre>`
    : html`<p class="muted" id="request-headers">The request was not recorded (stored before schema 5).</p>`
}
<p class="muted">${page.fetchUrl !== page.url ? html`Requested as ${page.fetchUrl}. ` : ''}${page.sha1 ?? ''} sha256:${page.sha256}</p>
<div class="grid">
<section><h2>Links out (${outlinks.length}${outlinks.length === LINKS_SHOWN ? '+' : ''})</h2>
<table id="links-out"><tbody>${outlinks.map((link) => html`<tr><td class="url"><a href="${captureHref(link.toUrl)}">${link.toUrl}</a></td><td>${link.kind}</td></tr>\n`)}</tbody></table>
</section>
<section><h2>Links in (${inlinks.length}${inlinks.length === LINKS_SHOWN ? '+' : ''})</h2>
<table id="links-in"><tbody>${inlinks.map((link) => html`<tr><td class="url"><a href="${captureHref(link.fromUrl)}">${link.fromUrl}</a></td><td>${link.kind}</td></tr>\n`)}</tbody></table>
</section>
</div>
${markdownSection(context, page)}<h2>Source</h2>
${
  source === undefined
    ? html`<p class="muted">Not text (${page.contentType ?? 'no content type'}): <a href="${downloadHref}">download it</a>.</p>`
    : html`${page.size > SOURCE_SHOWN_BYTES ? html`<p class="muted">The first ${formatBytes(SOURCE_SHOWN_BYTES)} of ${formatBytes(page.size)}: <a href="${downloadHref}">download it all</a>.</p>` : ''}<pre id="source">${source}</pre>`
}`;
  return { title: page.title ?? page.url, body };
}

function* take<T>(items: Iterator<T> & Iterable<T>, count: number): Generator<T> {
  let taken = 0;
  try {
    for (const item of items) {
      if (taken === count) return;
      taken += 1;
      yield item;
    }
  } finally {
    items.return?.();
  }
}
