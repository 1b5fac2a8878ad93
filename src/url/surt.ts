import { idna, ipv4 } from './surt-host.js';

// The SURT key pywb, cdxj-indexer and OutbackCDX look captures up by: Python `surt.surt(url)`
// (internetarchive/surt) with its default options, which is Google's canonicalisation, then the
// Internet Archive's, then the host reversed. A CDXJ keyed any other way (warcio.js's getSurt keeps
// a path's trailing slash and query order) leaves pywb answering 404 for what the WARC holds.
//
// Like surt, this works on the URL's UTF-8 bytes: each is one char of a latin1 string here, so
// escaping and comparing are per byte, as in Python. test/url/surt.test.ts holds keys Python computed.

/** The SURT key of a URL, or of a `urn:` URI (which keeps its text, lower-cased, as surt gives it). */
export function surt(url: string): string {
  if (url === '') return '-';
  if (url.startsWith('filedesc')) return url;
  const parsed = canonicalizeIa(canonicalizeGoogle(parse(Buffer.from(url, 'utf8').toString('latin1'))));
  return Buffer.from(surtForm(parsed), 'latin1').toString('utf8');
}

/** handyurl's fields; a missing part is undefined, as Python's None. */
interface HandyUrl {
  scheme: string;
  host: string | undefined;
  port: number | undefined;
  path: string | undefined;
  query: string | undefined;
  lastDelimiter: string | undefined;
}

const SPLIT = /^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$/s;

/** handyurl.parse: a default scheme, the authority's host and port (userinfo and fragment dropped). */
function parse(input: string): HandyUrl {
  let url = input.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '').replace(/[\n\r\t]/g, '');
  if (!/^[a-zA-Z][a-zA-Z0-9+\-.]*:/.test(url)) url = `http://${url}`;
  // From the Wayback: http://https://example.com/ is the URL after the last scheme.
  url = url.replace(/^(https?:\/\/)+/, '$1');
  const m = SPLIT.exec(url)!;
  const scheme = m[2]!;
  const netloc = (m[5] ?? '').replace(/:+$/, '');
  const hostinfo = netloc.slice(netloc.lastIndexOf('@') + 1);
  let hostname: string;
  let portText: string;
  const bracket = hostinfo.indexOf('[');
  if (bracket >= 0) {
    const inside = hostinfo.slice(bracket + 1);
    const close = inside.indexOf(']');
    hostname = close < 0 ? inside : inside.slice(0, close);
    const after = close < 0 ? '' : inside.slice(close + 1);
    portText = after.includes(':') ? after.slice(after.indexOf(':') + 1) : '';
  } else {
    const colon = hostinfo.indexOf(':');
    hostname = colon < 0 ? hostinfo : hostinfo.slice(0, colon);
    portText = colon < 0 ? '' : hostinfo.slice(colon + 1);
  }
  let port: number | undefined;
  if (portText) {
    if (!/^[0-9]+$/.test(portText) || Number(portText) > 65535) throw new RangeError(`not a port: ${portText}`);
    port = Number(portText) || undefined;
  }
  let host: string | undefined;
  if (hostname) {
    // An IPv6 zone keeps its case.
    const percent = hostname.indexOf('%');
    host = percent < 0 ? asciiLower(hostname) : asciiLower(hostname.slice(0, percent)) + hostname.slice(percent);
  }
  let path = m[6] || undefined;
  if (scheme.startsWith('http') && host === undefined && path !== undefined) {
    // http:////example.com/a: the host is the path's first segment.
    const rest = path.replace(/^\/+/, '');
    const slash = rest.indexOf('/');
    host = slash < 0 ? rest : rest.slice(0, slash);
    path = `/${slash < 0 ? '' : rest.slice(slash + 1)}`;
  }
  const query = m[8] || undefined;
  return { scheme, host, port, path, query, lastDelimiter: url.endsWith('?') && query === undefined ? '?' : undefined };
}

/** GoogleURLCanonicalizer: escapes minimal, host decoded, IDNA and IP forms, dot segments resolved. */
function canonicalizeGoogle(url: HandyUrl): HandyUrl {
  if (url.query) url.query = escapeOnce(unescapeRepeatedly(url.query));
  if (url.host) {
    let host = unescapeRepeatedly(url.host);
    if (/[^\x00-\x7f]/.test(host)) host = idna(host) ?? host;
    host = host.replaceAll('..', '.').replace(/^\.+|\.+$/g, '');
    url.host = ipv4(host) ?? escapeOnce(asciiLower(host));
  }
  let path = url.path === undefined ? undefined : unescapeRepeatedly(url.path);
  if (url.host) path = normalizePath(path);
  url.path = path === undefined ? undefined : escapeOnce(path);
  return url;
}

/** IAURLCanonicalizer with its defaults: www stripped, default port dropped, path and query lower-cased, session ids out, query sorted. */
function canonicalizeIa(url: HandyUrl): HandyUrl {
  if (url.host) {
    url.host = asciiLower(url.host);
    if (url.scheme !== 'dns') url.host = url.host.replace(/^www[0-9]*\./, '');
  }
  const defaultPort = ({ http: 80, https: 443 } as Record<string, number>)[asciiLower(url.scheme)] ?? 0;
  if (url.port === defaultPort) url.port = undefined;
  if (url.path) {
    let path = stripPathSessionId(asciiLower(url.path));
    if (path.endsWith('/') && path.length > 1) path = path.slice(0, -1);
    url.path = path;
  }
  if (url.query) {
    const query = alphaReorderQuery(asciiLower(stripQuerySessionId(url.query)));
    url.query = query === '' ? undefined : query;
  } else {
    url.lastDelimiter = undefined;
  }
  return url;
}

/** handyurl.geturl_bytes(surt=True, with_scheme=False): `com,example:8080)/path?query`, or `scheme:path` without a host. */
function surtForm(url: HandyUrl): string {
  let out = url.host ? '' : `${url.scheme}:`;
  if (url.host) out += `${url.host.split('.').reverse().join(',')}${url.port !== undefined ? `:${url.port}` : ''})`;
  if (url.path) out += url.path;
  else if (url.query !== undefined) out += '/';
  if (url.query !== undefined) out += `?${url.query}`;
  if (url.lastDelimiter !== undefined) out += url.lastDelimiter;
  return out;
}

/** Python's bytes.lower(): ASCII letters only. */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Every byte but letters, digits and `_.-~!"$&'()*+,/:;<=>?@[\]^\`{|}` as %XX (quote_from_bytes with surt's safe set). */
function escapeOnce(s: string): string {
  return s.replace(
    /[^A-Za-z0-9_.\-~!"$&'()*+,/:;<=>?@[\\\]^`{|}]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** unquote_to_bytes until nothing changes: `%2541` is `A`. */
function unescapeRepeatedly(s: string): string {
  for (;;) {
    const once = s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (once === s) return s;
    s = once;
  }
}

/** Dot segments resolved (a `..` above the root kept), empty segments dropped but a trailing slash kept. */
function normalizePath(path: string | undefined): string {
  if (!path) return '/';
  const kept: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (segment === '.') continue;
    if (segment === '..' && kept.length > 0) kept.pop();
    else kept.push(segment);
  }
  if (kept.length === 0) return '/';
  return `/${kept
    .slice(0, -1)
    .filter((segment) => segment !== '')
    .map((segment) => `${segment}/`)
    .join('')}${kept.at(-1)}`;
}

const PATH_SESSION_IDS = [/^(.*\/)(\((?:[a-z]\([0-9a-z]{24}\))+\)\/)([^?]+\.aspx.*)$/is, /^(.*\/)(\([0-9a-z]{24}\)\/)([^?]+\.aspx.*)$/is];

/** ASP.NET's `/(S(...))/` path segment before an .aspx page. */
function stripPathSessionId(path: string): string {
  for (const pattern of PATH_SESSION_IDS) {
    const m = pattern.exec(path);
    if (m) path = m[1]! + m[3]!;
  }
  return path;
}

const QUERY_SESSION_IDS = [
  /^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$/is,
  /^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$/is,
  /^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/is,
  /^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/is,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/is,
];

/** Java, PHP, ASP and ColdFusion session ids, as the Wayback strips them (a `&` before one stays). */
function stripQuerySessionId(query: string): string {
  for (const pattern of QUERY_SESSION_IDS) {
    const m = pattern.exec(query);
    if (m) query = m[2] ? m[1]! + m[2] : m[1]!;
  }
  return query;
}

/** Parameters sorted by name then value, byte order, as Python sorts `(name,)` and `(name, value)` tuples. */
function alphaReorderQuery(query: string): string {
  if (query.length <= 1) return query;
  const args = query.split('&').map((arg) => {
    const eq = arg.indexOf('=');
    return eq < 0 ? [arg] : [arg.slice(0, eq), arg.slice(eq + 1)];
  });
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  args.sort((a, b) => compare(a[0]!, b[0]!) || a.length - b.length || compare(a[1] ?? '', b[1] ?? ''));
  return args.map((arg) => arg.join('=')).join('&');
}
