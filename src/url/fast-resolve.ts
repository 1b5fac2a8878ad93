import { normalizeUrl, type Normalized, type NormalizedUrl } from './normalize-url.js';
import { urlKey } from './url-key.js';

/** The parts of an http(s) base that relative links are resolved against. */
interface BaseParts {
  scheme: 'http:' | 'https:';
  origin: string;
  pathname: string;
  /** The pathname up to and including its last '/'. */
  directory: string;
  /** The directory has no segment starting with a dot, so leading `../` can simply trim it. */
  plainDirectory: boolean;
  /** The pathname has percent-escapes, which a joined URL's key must fold. */
  escapes: boolean;
  /** The base itself, what an empty link (or one that is only a `#fragment`) names. */
  self: NormalizedUrl;
}

/**
 * Resolves and normalises links against one base, as `normalizeUrl(href, base)` does, without
 * running the WHATWG parser for the spellings real pages are made of: `http(s)://` URLs with a plain
 * ASCII host name or dotted quad, `/paths`, `relative/paths` with `./` and `../`, `?queries`. Every
 * character of such a link is one WHATWG keeps as it is or percent-encodes as UTF-8 (non-ASCII), so
 * resolving is joining strings and removing dot segments. Anything else (spaces, backslashes,
 * userinfo, IDNA and other IP forms, `%2e`, other schemes) goes to `normalizeUrl`.
 * test/fast-resolve.test.ts holds the two equal over a corpus of real, tricky and random links.
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
  const directory = pathname.slice(0, pathname.lastIndexOf('/') + 1);
  return {
    scheme,
    origin: url.origin,
    pathname,
    directory,
    plainDirectory: !directory.includes('/.'),
    escapes: pathname.includes('%'),
    self,
  };
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
const HASH = 0x23;
const DOT = 0x2e;
const COLON = 0x3a;
const PERCENT = 0x25;

function fastNormalizeWith(href: string, base: BaseParts): NormalizedUrl | undefined {
  let end = href.indexOf('#');
  if (end === -1) end = href.length;
  if (end === 0) return { ...base.self };
  let scheme: string = base.scheme;
  let origin = base.origin;
  // Where the path (or, for "?q", the query) of `href` starts, and the directory it is joined to ('' for an absolute path).
  let at = 0;
  let directory = '';
  // In a relative path, a colon before the first '/' or '?' may end a scheme (`mailto:`, `HTTP:`): the parser decides.
  let colonEndsScheme = false;
  const first = href.charCodeAt(0);
  if (first === SLASH) {
    if (href.charCodeAt(1) === SLASH) {
      const authority = readAuthority(href, 2, scheme);
      if (authority === undefined) return undefined;
      [origin, at] = authority;
    }
  } else if (first === QUESTION) {
    directory = base.pathname;
  } else if (href.startsWith('http://') || href.startsWith('https://')) {
    scheme = href.charCodeAt(4) === COLON ? 'http:' : 'https:';
    const authority = readAuthority(href, scheme.length + 2, scheme);
    if (authority === undefined) return undefined;
    [origin, at] = authority;
  } else {
    directory = base.directory;
    colonEndsScheme = true;
  }

  // One pass: every character must be one WHATWG keeps; note dot segments, escapes and where the query starts.
  let question = -1;
  let dots = false;
  let escapes = false;
  let nonAscii = false;
  for (let i = at; i < end; i++) {
    const c = href.charCodeAt(i);
    if (c >= 128) {
      // An IRI: WHATWG percent-encodes these as UTF-8, in path and query alike.
      nonAscii = true;
      continue;
    }
    const kept = KEPT[c]!;
    if (question !== -1) {
      if (!(kept & QUERY)) return undefined;
      if (c === PERCENT) escapes = true;
    } else if (!(kept & PATH)) {
      if (c !== QUESTION) return undefined;
      question = i;
    } else if (c === DOT) {
      if (i === at || href.charCodeAt(i - 1) === SLASH) dots = true;
    } else if (c === PERCENT) {
      escapes = true;
      // WHATWG reads `%2e` as a dot in dot segments; such links are left to it.
      if (href.charCodeAt(i + 1) === 0x32 && (href.charCodeAt(i + 2) | 0x20) === 0x65) return undefined;
    } else if (c === SLASH) {
      colonEndsScheme = false;
    } else if (c === COLON && colonEndsScheme) {
      return undefined;
    }
  }

  const pathEnd = question === -1 ? end : question;
  let own = href.slice(at, pathEnd);
  let query = question === -1 ? '' : href.slice(question, end);
  if (nonAscii) {
    const encoded = encodeNonAscii(own, query);
    if (encoded === undefined) return undefined;
    [own, query] = encoded;
    escapes = true;
  }
  let path: string | undefined;
  if (!dots) path = directory === '' && own === '' ? '/' : directory + own;
  else path = joinDotted(directory, own, base);
  if (path === undefined) return undefined;
  const url = origin + path + query;
  const normalized: NormalizedUrl = { url, key: escapes || (directory !== '' && base.escapes) ? urlKey(url) : url, origin };
  if (question !== -1 && question + 1 < end) normalized.pathKey = origin + path;
  return normalized;
}

const NON_ASCII = /[^\0-\x7f]+/g;

/** Path and query with their non-ASCII characters as UTF-8 escapes; undefined for a lone surrogate, which WHATWG turns into U+FFFD. */
function encodeNonAscii(path: string, query: string): [string, string] | undefined {
  try {
    return [path.replace(NON_ASCII, encodeURIComponent), query.replace(NON_ASCII, encodeURIComponent)];
  } catch {
    return undefined;
  }
}

/**
 * `directory` and a path with dot segments joined, as WHATWG's path state does. Links mostly start
 * with them (`../../library/os.html`), which is trimming the directory; the rest goes segment by segment.
 */
function joinDotted(directory: string, own: string, base: BaseParts): string | undefined {
  if (directory === '' || !base.plainDirectory) return removeDotSegments(directory + own);
  let dir = directory;
  let i = 0;
  for (;;) {
    if (own.startsWith('../', i)) {
      dir = parentOf(dir);
      i += 3;
    } else if (own.startsWith('./', i)) {
      i += 2;
    } else {
      break;
    }
  }
  const rest = i === 0 ? own : own.slice(i);
  if (rest === '..') return parentOf(dir);
  if (rest === '.') return dir;
  if (rest.charCodeAt(0) !== DOT && !rest.includes('/.')) return dir + rest;
  return removeDotSegments(directory + own);
}

/** The directory above one ending in '/'; the root is its own parent. */
function parentOf(dir: string): string {
  return dir.length === 1 ? dir : dir.slice(0, dir.lastIndexOf('/', dir.length - 2) + 1);
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
    if (c === SLASH || c === QUESTION || c === HASH) break;
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
