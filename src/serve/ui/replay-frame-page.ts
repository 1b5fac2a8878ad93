import { RAW_SANDBOX, REPLAY_SANDBOX, replayFramePath } from '../replay-frame.js';
import { replayFacts, type ReplayFacts } from '../replay/replay-facts.js';
import { captureTimestamp } from '../replay-url.js';
import { captureHref, timeTag } from './format.js';
import { html, type Html } from './html.js';
import { addressesOf, UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const TIMESTAMP = /^\d{1,14}$/;

/**
 * `/replay?url=[&ts=][&raw=1]`: the top document of a replay, on the UI origin (pywb's framed
 * replay): the replay bar, and the capture in a sandboxed frame of the replay origin filling the
 * rest (see src/serve/replay-frame.ts for what the sandbox guarantees). `raw=1` frames the body as
 * captured, where nothing runs. Without `ts`, the capture nearest now: the latest. The replay origin
 * redirects a top-level navigation to any replay path here.
 *
 * The bar is this document's, never the replayed page's: the archived URL, the capture's time (in the
 * reader's zone, by /assets/local-time.js), its place among the URL's captures with the ones before
 * and after, a fuzzy match said as such, and links to the capture's page and the archive. When the
 * reader follows a link inside the frame, /assets/replay-bar.js redraws it (see replay-bar-js.ts).
 */
export function replayFramePage(context: UiContext, params: URLSearchParams): UiPage {
  const url = params.get('url');
  if (!url) throw new UiHttpError(400, 'name the archived URL: /replay?url=https://example.com/');
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url))
    throw new UiHttpError(400, `url must be an http or https URL, got ${url.slice(0, 80)}`);
  const ts = params.get('ts') ?? captureTimestamp(new Date().toISOString());
  if (!TIMESTAMP.test(ts)) throw new UiHttpError(400, `ts must be a capture's timestamp (YYYYMMDDhhmmss), got ${ts.slice(0, 40)}`);
  const raw = params.get('raw') === '1';
  const facts = replayFacts(context.archive, url, ts);
  const addresses = addressesOf(context);
  // On a site's own host the fragment goes along, so an app that routes on it opens at that route;
  // the capture is looked up without it.
  // Without a time asked for, the capture's own: the site's host then stays the same from one visit to the next.
  const src = addresses.replayUrl(url, (params.has('ts') ? ts : (facts?.timestamp ?? ts)).padEnd(14, '0'), raw ? 'id_' : '');
  const body = html`${replayBar(addresses.baseOrigin, addresses.perOrigin ? addresses.port : undefined, url, ts, raw, facts)}
<iframe id="replay" class="replay-view" src="${src}" sandbox="${raw ? RAW_SANDBOX : REPLAY_SANDBOX}" referrerpolicy="no-referrer" title="${raw ? 'body as captured' : 'replay'} of ${url}"></iframe>`;
  return { title: url, body, bare: true, scripts: ['/assets/replay-bar.js'] };
}

/** The bar, drawn here so it reads without script; replay-bar-js.ts draws the same elements from /api/capture. */
function replayBar(
  replayOrigin: string,
  hostsPort: number | undefined,
  url: string,
  ts: string,
  raw: boolean,
  facts: ReplayFacts | undefined,
): Html {
  const shown = facts?.url ?? url;
  const at = facts?.timestamp ?? ts;
  const details = `${captureHref(shown)}&ts=${at}`;
  const step = (id: string, label: string, to: string | null | undefined) =>
    to
      ? html`<a id="${id}" href="${replayFramePath(shown, to, raw ? 'id_' : '')}">${label}</a>`
      : html`<a id="${id}" class="off">${label}</a>`;
  const other = raw
    ? html`<a id="show-replay" href="${replayFramePath(shown, at)}">replay</a>`
    : html`<a id="show-raw" href="${replayFramePath(shown, at, 'id_')}" title="the body as captured, unrewritten, nothing run">raw</a>`;
  return html`<header id="replay-bar" data-replay-origin="${replayOrigin}"${hostsPort !== undefined ? html` data-replay-hosts-port="${String(hostsPort)}"` : ''} data-url="${shown}" data-ts="${at}"${facts?.fuzzy ? html` data-requested="${url}"` : ''}${raw ? html` data-raw=""` : ''}>
<a class="brand" id="replay-archive" href="/" title="back to the archive">crawlite</a>
${raw ? html`<span class="muted">body as captured of</span>` : ''}
<a id="replay-url" href="${details}" title="${url}">${url}</a>
<span id="replay-fuzzy"${facts?.fuzzy ? html` title="${`no capture of ${url}: fuzzy match, showing a capture of ${shown}`}"` : html` hidden`}>fuzzy match: showing a capture of <a id="replay-fuzzy-url" href="${details}">${shown}</a></span>
${facts ? timeTag(facts.fetchedAt, 'replay-time') : html`<span id="replay-missing" class="error">not archived</span>`}
<span class="replay-steps">${step('replay-prev', '‹ prev', facts?.prev)} <span id="replay-position">${facts ? `capture ${facts.index + 1} of ${facts.count}` : ''}</span> ${step('replay-next', 'next ›', facts?.next)}</span>
<a id="replay-capture" href="${details}" title="the capture's status, headers, links and source">details</a>
${other}
</header>`;
}
