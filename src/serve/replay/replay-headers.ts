/**
 * The headers of a replayed response: the capture's own, less those that describe the original
 * connection or body, set state, or carry the original site's policies, plus the replay origin's
 * policy, which confines everything the page loads to the replay origin.
 */

/** Dropped from every capture: hop-by-hop, framing (the body is stored decoded, its length is ours), state, and the site's policies. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-encoding',
  'content-length',
  'content-range',
  'accept-ranges',
  'set-cookie',
  'set-cookie2',
  'content-security-policy',
  'content-security-policy-report-only',
  'strict-transport-security',
  'public-key-pins',
  'x-frame-options',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'report-to',
  'nel',
  'alt-svc',
  // A Link header can preload or preconnect to live hosts.
  'link',
  'refresh',
  'location',
  'clear-site-data',
  'x-dns-prefetch-control',
  'referrer-policy',
]);

/** A header name Node will send (an HTTP token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Characters Node refuses in a header value: an imported WARC may carry any. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The capture's headers that replay passes on, lower-case. Location and Content-Type are set by the caller. */
export function keptHeaders(captured: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, stored] of Object.entries(captured)) {
    if (DROPPED.has(name) || name === 'content-type' || !TOKEN.test(name)) continue;
    // Stored values join repeats with "\n" for some headers; a header value may not hold one.
    const value = stored.replace(/[\r\n]+/g, ', ');
    if (!INVALID_VALUE.test(value)) kept[name] = value;
  }
  return kept;
}

/**
 * The replay origin's policy on every response it serves: a page may load, connect to, submit to
 * and frame only the replay origin (plus data: and blob:, and inline and eval'd code, which
 * archived pages use), and may be framed only by the UI. CSP does not stop navigation: that is
 * why links are rewritten. `same-origin` referrers keep the Referer that resolves escaped
 * absolute paths without sending anything elsewhere.
 */
export function replayPolicyHeaders(replayOrigin: string, uiOrigin: string): Record<string, string> {
  const self = `'self' ${replayOrigin}`;
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
    `frame-ancestors ${self} ${uiOrigin}`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-dns-prefetch-control': 'off',
    'referrer-policy': 'same-origin',
  };
}
