import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import type { SessionSettings } from '../http/http-fetcher.js';
import { parseCookiesTxt } from '../http/cookies-txt.js';
import { parseRequestHeaders } from '../http/request-headers.js';
import type { RunSession, SessionNote } from '../run/session.js';
import { UsageError } from './usage-error.js';

/** Options that shape the requests but are never stored in the archive: they may hold secrets. */
export function withSessionFlags<T>(yargs: Argv<T>) {
  return yargs
    .option('header', { type: 'string', array: true, describe: "extra request header 'Name: value' (repeatable; not stored in the archive)" })
    .option('cookie', { type: 'string', array: true, describe: "cookie 'name=value' sent to the roots' hosts (repeatable; not stored)" })
    .option('cookies', { type: 'string', describe: 'Netscape cookies.txt file to load, as wget --load-cookies and curl -b read it (not stored)' })
    .option('proxy', { type: 'string', describe: 'HTTP proxy URL, e.g. http://user:pass@proxy:3128 (not stored)' });
}

interface SessionArgs {
  header?: string[];
  cookie?: string[];
  cookies?: string;
  proxy?: string;
}

function checkProxy(proxy: string): string {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    throw new UsageError(`--proxy ${JSON.stringify(proxy)} is not a URL; give e.g. http://proxy.example:3128`);
  }
  if (!['http:', 'https:', 'socks5:'].includes(url.protocol)) throw new UsageError(`--proxy must be an http://, https:// or socks5:// URL, got ${url.protocol}`);
  return url.href;
}

function readCookieFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--cookies ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** Session settings from the command line, checked now; built once the crawl's roots are known. */
export type GivenSession = RunSession;

/** Reads and checks the session flags, so a bad one is refused before the archive is opened. */
export async function sessionSettings(parsed: Record<string, unknown>): Promise<GivenSession> {
  const args = parsed as SessionArgs;
  const note: SessionNote = { headers: [], cookies: false, proxy: false };
  let headers: Record<string, string> | undefined;
  if (args.header?.length) {
    try {
      headers = parseRequestHeaders(args.header.map(String));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    note.headers = Object.keys(headers);
  }
  const pairs = (args.cookie ?? []).map(String);
  for (const pair of pairs) if (!/^[^=;\s]+=/.test(pair)) throw new UsageError(`--cookie ${JSON.stringify(pair)}: expected 'name=value'`);
  const lines = args.cookies === undefined ? [] : parseCookiesTxt(readCookieFile(args.cookies), args.cookies);
  note.cookies = args.cookies !== undefined || pairs.length > 0;
  const proxy = args.proxy === undefined ? undefined : checkProxy(args.proxy);
  note.proxy = proxy !== undefined;
  // Loaded only by the commands that crawl.
  const { CrawlCookies } = await import('../http/cookie-jar.js');
  return {
    note,
    build(roots) {
      const session: SessionSettings = {};
      if (headers) session.headers = headers;
      if (proxy) session.proxy = proxy;
      // Without cookies given, the crawl keeps the ones servers set in a jar of its own.
      if (note.cookies) {
        const cookies = new CrawlCookies();
        cookies.load(lines);
        for (const pair of pairs) for (const root of roots) cookies.addForHost(pair, root);
        session.cookies = cookies;
      }
      return session;
    },
  };
}

/** What a run says when the last run used settings that were not stored and this one lacks them. */
export function describeMissingSession(missing: SessionNote): string {
  const flags = [
    ...missing.headers.map((name) => `--header '${name}: ...'`),
    ...(missing.cookies ? ['--cookies/--cookie'] : []),
    ...(missing.proxy ? ['--proxy'] : []),
  ];
  return `the last run used ${flags.join(', ')}, which are not stored in the archive (they may hold secrets); give them again if the site needs them`;
}
