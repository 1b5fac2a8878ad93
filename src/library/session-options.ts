import { readFileSync } from 'node:fs';
import type { SessionSettings } from '../http/http-fetcher.js';
import { CrawlCookies } from '../http/cookie-jar.js';
import { parseCookiesTxt } from '../http/cookies-txt.js';
import { HeaderOptionError, parseRequestHeaders } from '../http/request-headers.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import type { RunSession } from '../run/session.js';

/** What a crawl sends without storing it: it may hold secrets. */
export interface SessionOptions {
  /**
   * Extra request headers, e.g. `{ authorization: 'Bearer ...' }`, or as wget and curl take them, `['Authorization: Bearer ...']`;
   * Host, Cookie, User-Agent and framing headers are the crawler's own.
   */
  headers?: Record<string, string> | string[];
  /** Cookies `'name=value'`, sent to the roots' hosts. */
  cookies?: string[];
  /** A Netscape cookies.txt file to load, as wget --load-cookies and curl -b read it. */
  cookieFile?: string;
  /** An HTTP, HTTPS or SOCKS5 proxy URL, e.g. `http://user:pass@proxy:3128`. */
  proxy?: string;
}

export type SessionKey = keyof SessionOptions;
export const SESSION_KEYS: readonly SessionKey[] = ['headers', 'cookies', 'cookieFile', 'proxy'];

/** How a session option is named in refusals: `proxy` for a library caller, `--proxy` on the command line. */
export type NameSessionOption = (key: SessionKey) => string;

const byKey: NameSessionOption = (key) => key;

function headerLines(headers: unknown, name: NameSessionOption): string[] {
  if (Array.isArray(headers) && headers.every((line) => typeof line === 'string')) return headers as string[];
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Array.isArray(headers) ||
    !Object.values(headers).every((value) => typeof value === 'string')
  ) {
    throw new InvalidOptionError(
      'headers',
      `${name('headers')} must be an object of header names to string values, or an array of 'Name: value' strings`,
    );
  }
  return Object.entries(headers as Record<string, string>).map(([header, value]) => `${header}: ${value}`);
}

function checkHeaders(headers: unknown, name: NameSessionOption): Record<string, string> {
  try {
    return parseRequestHeaders(headerLines(headers, name));
  } catch (error) {
    if (!(error instanceof HeaderOptionError)) throw error;
    throw new InvalidOptionError('headers', error.message.replace(/^--header /, `${name('headers')} `), { cause: error });
  }
}

function checkCookies(cookies: unknown, name: NameSessionOption): string[] {
  if (!Array.isArray(cookies) || !cookies.every((pair) => typeof pair === 'string')) {
    throw new InvalidOptionError('cookies', `${name('cookies')} must be an array of 'name=value' strings`);
  }
  for (const pair of cookies as string[])
    if (!/^[^=;\s]+=/.test(pair))
      throw new InvalidOptionError('cookies', `${name('cookies')} ${JSON.stringify(pair)}: expected 'name=value'`);
  return cookies as string[];
}

function readCookieFile(file: unknown, name: NameSessionOption): string {
  if (typeof file !== 'string' || file === '')
    throw new InvalidOptionError('cookieFile', `${name('cookieFile')} must name a cookies.txt file`);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidOptionError(
      'cookieFile',
      `${name('cookieFile')} ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      { cause: error },
    );
  }
}

function checkProxy(proxy: unknown, name: NameSessionOption): string {
  let url: URL;
  try {
    if (typeof proxy !== 'string') throw new TypeError('not a string');
    url = new URL(proxy);
  } catch {
    throw new InvalidOptionError('proxy', `${name('proxy')} ${JSON.stringify(proxy)} is not a URL; give e.g. http://proxy.example:3128`);
  }
  if (!['http:', 'https:', 'socks5:'].includes(url.protocol))
    throw new InvalidOptionError('proxy', `${name('proxy')} must be an http://, https:// or socks5:// URL, got ${url.protocol}`);
  return url.href;
}

/**
 * Checks the session options now, so a bad one is refused (InvalidOptionError naming it) before the
 * archive is opened; what the run builds its requests with once its roots are known.
 */
export function checkSession(options: SessionOptions, name: NameSessionOption = byKey): RunSession {
  const headers = options.headers === undefined ? undefined : checkHeaders(options.headers, name);
  const pairs = options.cookies === undefined ? [] : checkCookies(options.cookies, name);
  const lines = options.cookieFile === undefined ? [] : parseCookiesTxt(readCookieFile(options.cookieFile, name), options.cookieFile);
  const proxy = options.proxy === undefined ? undefined : checkProxy(options.proxy, name);
  const cookies = options.cookieFile !== undefined || pairs.length > 0;
  return {
    note: { headers: Object.keys(headers ?? {}), cookies, proxy: proxy !== undefined },
    build(roots) {
      const session: SessionSettings = {};
      if (headers) session.headers = headers;
      if (proxy) session.proxy = proxy;
      // Without cookies given, the crawl keeps the ones servers set in a jar of its own.
      if (cookies) {
        const jar = new CrawlCookies();
        jar.load(lines);
        for (const pair of pairs) for (const root of roots) jar.addForHost(pair, root);
        session.cookies = jar;
      }
      return session;
    },
  };
}
