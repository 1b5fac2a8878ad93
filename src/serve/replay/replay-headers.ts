/**
 * The headers of a replayed response: of the capture's own, a few that describe the body pass as
 * captured; those that frame the original connection or body are dropped; every other one is
 * renamed `x-archive-orig-<name>` (pywb's rule), so it stays visible but grants nothing. An
 * allowlist, because the headers that give a response powers keep growing: Service-Worker-Allowed
 * (a worker over the whole replay origin), Access-Control-Allow-* (any website reading replayed
 * captures), Set-Cookie, Permissions-Policy, Origin-Trial, Accept-CH, SourceMap, Refresh, Link...
 * Then the replay origin's policy is added, which confines everything the page loads to the
 * replay origins of this server.
 */

/** Passed on as captured: they describe the body and grant the page nothing. */
const KEPT = new Set(['content-language', 'content-disposition', 'x-content-type-options']);

/** Dropped: hop-by-hop and framing (the body is stored decoded, its length is ours), and what replay sets itself. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-encoding',
  'content-length',
  'content-range',
  'accept-ranges',
  'content-type',
  'location',
]);

/** The prefix of a captured header that is shown, not obeyed. */
export const ARCHIVED_HEADER_PREFIX = 'x-archive-orig-';

/** A header name Node will send (an HTTP token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Characters Node refuses in a header value: an imported WARC may carry any. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The capture's headers as replay sends them, lower-case. Location and Content-Type are set by the caller. */
export function keptHeaders(captured: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, stored] of Object.entries(captured)) {
    if (DROPPED.has(name) || !TOKEN.test(name)) continue;
    // Stored values join repeats with "\n" for some headers; a header value may not hold one.
    const value = stored.replace(/[\r\n]+/g, ', ');
    if (!INVALID_VALUE.test(value)) kept[KEPT.has(name) ? name : ARCHIVED_HEADER_PREFIX + name] = value;
  }
  return kept;
}

/**
 * The replay origin's policy on every response it serves: a page may load, connect to, submit to
 * and frame only this server's replay origins, `replaySources` (the base one, and on loopback
 * `http://*.crawlite.localhost:<replayPort>`, the archived sites' own hosts: replay-addresses.ts) (plus data: and blob:, and inline and eval'd code, which
 * archived pages use), and may be framed only by the UI. CSP does not stop a window from
 * navigating itself: that is why replayed pages are only shown framed (src/serve/replay-frame.ts)
 * and their links rewritten. Its `sandbox` (the frame's, REPLAY_SANDBOX, for a rewritten page;
 * RAW_SANDBOX, no scripts, for anything else) holds even where a replayed document ends up outside
 * the UI's frame: no popups, no navigation of a top document it is not. Workers stay allowed (archived pages use them); service
 * workers are refused by the handler instead. `same-origin` referrers keep the Referer that
 * resolves escaped absolute paths without sending anything elsewhere.
 */
export function replayPolicyHeaders(replaySources: string, uiOrigins: string, sandbox: string): Record<string, string> {
  const self = `'self' ${replaySources}`;
  const csp = [
    `default-src ${self} data: blob: 'unsafe-inline' 'unsafe-eval'`,
    `script-src ${self} data: blob: 'unsafe-inline' 'unsafe-eval'`,
    `style-src ${self} data: blob: 'unsafe-inline'`,
    `img-src ${self} data: blob:`,
    `font-src ${self} data: blob:`,
    `media-src ${self} data: blob:`,
    `connect-src ${self} data: blob:`,
    `frame-src ${self} data: blob:`,
    `worker-src ${self} data: blob:`,
    `object-src ${self}`,
    `manifest-src ${self}`,
    `form-action ${self}`,
    `base-uri ${self}`,
    `frame-ancestors ${self} ${uiOrigins}`,
    `sandbox ${sandbox}`.trimEnd(),
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-dns-prefetch-control': 'off',
    'referrer-policy': 'same-origin',
  };
}
