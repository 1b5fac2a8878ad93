import type { SessionSettings } from '../http/http-fetcher.js';
import { CrawlCookies } from '../http/cookie-jar.js';
import { HeaderOptionError, parseRequestHeaders } from '../http/request-headers.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import type { RunSession } from '../run/session.js';

/** What a crawl sends without storing it: it may hold secrets. */
export interface SessionOptions {
  /** Extra request headers, e.g. `{ authorization: 'Bearer ...' }`; Host, Cookie, User-Agent and framing headers are the crawler's own. */
  headers?: Record<string, string>;
  /** Cookies `'name=value'`, sent to the roots' hosts. */
  cookies?: string[];
  /** An HTTP, HTTPS or SOCKS5 proxy URL, e.g. `http://user:pass@proxy:3128`. */
  proxy?: string;
}

function checkHeaders(headers: unknown): Record<string, string> {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers) || !Object.values(headers).every((value) => typeof value === 'string')) {
    throw new InvalidOptionError('headers', 'headers must be an object of header names to string values');
  }
  try {
    return parseRequestHeaders(Object.entries(headers as Record<string, string>).map(([name, value]) => `${name}: ${value}`));
  } catch (error) {
    if (!(error instanceof HeaderOptionError)) throw error;
    throw new InvalidOptionError('headers', error.message.replace(/^--header /, 'headers: '), { cause: error });
  }
}

function checkCookies(cookies: unknown): string[] {
  if (!Array.isArray(cookies) || !cookies.every((pair) => typeof pair === 'string' && /^[^=;\s]+=/.test(pair))) {
    throw new InvalidOptionError('cookies', "cookies must be an array of 'name=value' strings");
  }
  return cookies as string[];
}

function checkProxy(proxy: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(String(proxy));
  } catch {
    // Named below.
  }
  if (typeof proxy !== 'string' || !url || !['http:', 'https:', 'socks5:'].includes(url.protocol)) {
    throw new InvalidOptionError('proxy', `proxy must be an http://, https:// or socks5:// URL, got ${JSON.stringify(proxy)}`);
  }
  return url.href;
}

/** Checks the session options now, so a bad one is refused before the archive is opened. */
export function sessionFromOptions(options: SessionOptions): RunSession {
  const headers = options.headers === undefined ? undefined : checkHeaders(options.headers);
  const pairs = options.cookies === undefined ? [] : checkCookies(options.cookies);
  const proxy = options.proxy === undefined ? undefined : checkProxy(options.proxy);
  return {
    note: { headers: Object.keys(headers ?? {}), cookies: pairs.length > 0, proxy: proxy !== undefined },
    build(roots) {
      const session: SessionSettings = {};
      if (headers) session.headers = headers;
      if (proxy) session.proxy = proxy;
      // Without cookies given, the crawl keeps the ones servers set in a jar of its own.
      if (pairs.length) {
        const cookies = new CrawlCookies();
        for (const pair of pairs) for (const root of roots) cookies.addForHost(pair, root);
        session.cookies = cookies;
      }
      return session;
    },
  };
}
