import { normalizeUrl, type Normalized, type NormalizedUrl } from './normalize-url.js';
import { urlKey } from './url-key.js';

/** The parts of an http(s) base that relative links are resolved against. */
interface BaseParts {
  scheme: 'http:' | 'https:';
  origin: string;
  pathname: string;
  /** The pathname up to and including its last '/'. */
  directory: string;
  /** The base itself, what an empty link (or one that is only a `#fragment`) names. */
  self: NormalizedUrl;
}

/**
 * Resolves and normalises links against one base, as `normalizeUrl(href, base)` does, without
 * running the WHATWG parser for the spellings real pages are made of: same- or other-origin
 * `http(s)://` URLs with a plain lower-case host, `/paths`, `relative/paths` with `./` and `../`,
 * `?queries`. Every character of such a link is one WHATWG leaves as it is, so resolving is
 * joining strings and removing dot segments. Anything else (non-ASCII, spaces, backslashes,
 * userinfo, IP literals other than plain dotted quads, `%2e`, other schemes) goes to `normalizeUrl`.
 * test/fast-resolve.test.ts holds the two equal over a corpus of real and tricky links.
 */
export class LinkResolver {
  private readonly parts: BaseParts | undefined;

  constructor(private readonly base: string) {
    this.parts = baseParts(base);
  }

  normalize(href: string): Normalized {
    return (this.parts && fastNormalizeWith(href, this.parts)) ?? normalizeUrl(href, this.base);
  }

  /** The fast path alone: undefined where it hands over to the WHATWG parser. */
  tryFast(href: string): NormalizedUrl | undefined {
    return this.parts && fastNormalizeWith(href, this.parts);
  }
}

/** `normalizeUrl(href, base)`, faster for common links; a resolver per base is cheaper when one base serves many links. */
export function fastNormalize(href: string, base: string): Normalized {
  return new LinkResolver(base).normalize(href);
}

function baseParts(base: string): BaseParts | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  const scheme = url.protocol;
  // Userinfo would have to be carried into every relative result; such bases are rare enough to leave to WHATWG.
  if ((scheme !== 'http:' && scheme !== 'https:') || url.username !== '' || url.password !== '') return undefined;
  const pathname = url.pathname;
  // Asked of the parser itself, since Node's drops an empty base query ('http://h/a?') here.
  const self = normalizeUrl('', base) as NormalizedUrl;
  return { scheme, origin: url.origin, pathname, directory: pathname.slice(0, pathname.lastIndexOf('/') + 1), self };
}

const PATH = 1;
const QUERY = 2;
/**
 * ASCII characters WHATWG keeps as written in an http(s) path (PATH) or query (QUERY). Deliberately
 * narrower than the spec's sets: only characters that are kept in every version of them.
 */
const KEPT = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%') {
  KEPT[c.charCodeAt(0)] = PATH | QUERY;
}
KEPT['?'.charCodeAt(0)] = QUERY;

const SLASH = 0x2f;
const QUESTION = 0x3f;
const DOT = 0x2e;
const COLON = 0x3a;

function fastNormalizeWith(input: string, base: BaseParts): NormalizedUrl | undefined {
  const hash = input.indexOf('#');
  const href = hash === -1 ? input : input.slice(0, hash);
  const end = href.length;
  if (end === 0) return { ...base.self };
  let scheme: string = base.scheme;
  let origin = base.origin;
  // Where the path (or, for "?q", the query) of `href` starts, and what it is joined to.
  let at: number;
  let prefix: string;
  const first = href.charCodeAt(0);
  if (first === SLASH && href.charCodeAt(1) === SLASH) {
    const authority = readAuthority(href, 2, scheme);
    if (authority === undefined) return undefined;
    [origin, at] = authority;
    prefix = '';
  } else if (first === SLASH) {
    at = 0;
    prefix = '';
  } else if (first === QUESTION) {
    at = 0;
    prefix = base.pathname;
  } else if (href.startsWith('http://') || href.startsWith('https://')) {
    scheme = href.charCodeAt(4) === COLON ? 'http:' : 'https:';
    const authority = readAuthority(href, scheme.length + 2, scheme);
    if (authority === undefined) return undefined;
    [origin, at] = authority;
    prefix = '';
  } else {
    // A colon before the first '/' or '?' may end a scheme (`mailto:`, `HTTP:`): the parser decides.
    for (let i = 0; i < end; i++) {
      const c = href.charCodeAt(i);
      if (c === SLASH || c === QUESTION) break;
      if (c === COLON) return undefined;
    }
    at = 0;
    prefix = base.directory;
  }

  const question = href.indexOf('?', at);
  const pathEnd = question === -1 ? end : question;
  for (let i = at; i < pathEnd; i++) {
    const c = href.charCodeAt(i);
    if (c >= 128 || !(KEPT[c]! & PATH)) return undefined;
  }
  for (let i = pathEnd + 1; i < end; i++) {
    const c = href.charCodeAt(i);
    if (c >= 128 || !(KEPT[c]! & QUERY)) return undefined;
  }
  let own = href.slice(at, pathEnd);
  // WHATWG reads `%2e` as a dot in dot segments; such links are left to it.
  if (own.includes('%2e') || own.includes('%2E')) return undefined;
  if (prefix === '' && own === '') own = '/';
  let path = prefix + own;
  if (hasDotSegment(own)) {
    const resolved = removeDotSegments(path);
    if (resolved === undefined) return undefined;
    path = resolved;
  }
  const query = question === -1 ? undefined : href.slice(question + 1);

  const url = query === undefined ? origin + path : `${origin}${path}?${query}`;
  const normalized: NormalizedUrl = { url, key: url.includes('%') ? urlKey(url) : url, origin };
  if (query) normalized.pathKey = origin + path;
  return normalized;
}

/** True when a path (or relative path) has a `.` or `..` segment. */
function hasDotSegment(path: string): boolean {
  return path.charCodeAt(0) === DOT || path.includes('/.');
}

/**
 * WHATWG's path state over an absolute path: `.` segments go, `..` removes the one before (never
 * past the root). Undefined when another segment starts with a dot (`.well-known`): Node 20's URL
 * parser then leaves the dot segments in place (ada-url/ada#935), and results must match it.
 */
function removeDotSegments(path: string): string | undefined {
  const segments = path.slice(1).split('/');
  const out: string[] = [];
  const last = segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const segment = segments[i]!;
    if (segment === '..') {
      out.pop();
      if (i === last) out.push('');
    } else if (segment === '.') {
      if (i === last) out.push('');
    } else if (segment.charCodeAt(0) === DOT) {
      return undefined;
    } else {
      out.push(segment);
    }
  }
  return '/' + out.join('/');
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };
/** A dotted quad as WHATWG serialises it: no leading zeros, each part at most 255. */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * The origin of the authority starting at `from` and where it ends, for a plain host name or
 * dotted quad with an optional port; undefined for anything the host parser must see (IDNA,
 * `xn--`, numeric hosts in other forms, IPv6, userinfo, empty labels).
 */
function readAuthority(href: string, from: number, scheme: string): [origin: string, end: number] | undefined {
  let end = from;
  let colon = -1;
  let upper = false;
  for (; end < href.length; end++) {
    const c = href.charCodeAt(end);
    if (c === SLASH || c === QUESTION) break;
    if (c === COLON) {
      if (colon !== -1) return undefined;
      colon = end;
    } else if (colon === -1) {
      if (c >= 0x41 && c <= 0x5a) upper = true;
      else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === DOT)) return undefined;
    } else if (c < 0x30 || c > 0x39) {
      return undefined;
    }
  }
  const hostEnd = colon === -1 ? end : colon;
  let host = href.slice(from, hostEnd);
  if (upper) host = host.toLowerCase();
  if (host === '' || host.charCodeAt(0) === DOT || host.includes('..') || host.includes('xn--')) return undefined;
  // A last label starting with a digit makes WHATWG read the host as an IPv4 number, in any of several spellings.
  const lastLabel = host.endsWith('.') ? host.slice(host.lastIndexOf('.', host.length - 2) + 1, -1) : host.slice(host.lastIndexOf('.') + 1);
  const lead = lastLabel.charCodeAt(0);
  if (lead >= 0x30 && lead <= 0x39 && !IPV4.test(host)) return undefined;
  let port = '';
  if (colon !== -1) {
    const digits = href.slice(colon + 1, end);
    if (digits.length > 5) return undefined;
    if (digits !== '') {
      const value = Number(digits);
      if (value > 65535) return undefined;
      port = String(value) === DEFAULT_PORT[scheme] ? '' : `:${value}`;
    }
  }
  return [`${scheme}//${host}${port}`, end];
}
