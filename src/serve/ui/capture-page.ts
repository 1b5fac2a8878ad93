import type { ArchivedPage } from '../../storage/archive-reader.js';
import { linksTo } from '../../storage/links-to.js';
import { captureTimestamp, replayPath } from '../replay-url.js';
import { html } from './html.js';
import { captureHref, formatBytes } from './format.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const SOURCE_SHOWN_BYTES = 256 * 1024;
const LINKS_SHOWN = 500;
const TEXT_TYPE = /^(text\/|application\/(xhtml\+xml|xml|json|javascript|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml)/i;

/** The archived page a request names (`?url=`), or a 400/404 saying why not. */
export function requestedCapture(context: UiContext, params: URLSearchParams): ArchivedPage {
  const url = params.get('url');
  if (!url) throw new UiHttpError(400, 'name the archived URL: /capture?url=https://example.com/');
  const page = context.archive.page(url);
  if (!page) throw new UiHttpError(404, `${url} is not archived (no response stored for it)`);
  return page;
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

/** `/capture?url=`: one stored response, its request, its links both ways, its source and its replay. */
export function capturePage(context: UiContext, params: URLSearchParams): UiPage {
  const page = requestedCapture(context, params);
  const timestamp = captureTimestamp(page.fetchedAt);
  const replaySrc = `${context.replayOrigin}${replayPath(page.url, timestamp)}`;
  const rawBodyHref = `${context.replayOrigin}${replayPath(page.url, timestamp, 'id_')}`;
  const downloadHref = `/raw?url=${encodeURIComponent(page.url)}`;
  const outlinks = [...take(context.archive.links(page.url), LINKS_SHOWN)];
  const inlinks = linksTo(context.db, page.url, LINKS_SHOWN);
  const responseHeaders =
    headerBlock(page.rawHeaders) ??
    Object.entries(page.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  const statusLine = `${page.httpVersion ?? 'HTTP/1.1'} ${page.status} ${page.reason ?? ''}`.trimEnd();
  const isText = page.contentType !== null && TEXT_TYPE.test(page.contentType);
  const source = isText ? decode(page.body.subarray(0, SOURCE_SHOWN_BYTES), page.charset) : undefined;
  const body = html`<h1 id="capture-url">${page.url}</h1>
<p>${page.title ? html`<strong id="capture-title">${page.title}</strong> · ` : ''}<span id="capture-status">${page.status}</span> · ${page.contentType ?? 'no content type'} · ${formatBytes(page.size)} · fetched <time>${page.fetchedAt}</time> · ${page.kind}, depth ${page.depth}</p>
<p><a id="download" href="${downloadHref}">download the body</a> · <a id="raw-body" href="${rawBodyHref}">body as captured on the replay origin</a> · <a href="${replaySrc}" target="_blank" rel="noopener">open the replay</a></p>
<h2>Replay</h2>
<iframe id="replay" src="${replaySrc}" sandbox="allow-scripts allow-forms allow-same-origin allow-popups" referrerpolicy="no-referrer" title="replay of ${page.url}"></iframe>
<h2>Response</h2>
<pre id="response-headers">${statusLine}\n${responseHeaders}</pre>
<h2>Request</h2>
${
  page.requestMethod
    ? html`<p>${page.requestMethod} <code>${page.requestTarget ?? ''}</code>${page.remoteIp ? html` to ${page.remoteIp}` : ''}${page.startedAt ? html`, started <time>${page.startedAt}</time>` : ''}</p>
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
<h2>Source</h2>
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
