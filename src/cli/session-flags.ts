import type { Argv } from 'yargs';
import type { NameSessionOption, SessionNote, SessionOptions } from '../library/index.js';

/** Options that shape the requests but are never stored in the archive: they may hold secrets. */
export function withSessionFlags<T>(yargs: Argv<T>) {
  return yargs
    .option('header', {
      type: 'string',
      array: true,
      describe: "extra request header 'Name: value' (repeatable; not stored in the archive)",
    })
    .option('cookie', { type: 'string', array: true, describe: "cookie 'name=value' sent to the roots' hosts (repeatable; not stored)" })
    .option('cookies', {
      type: 'string',
      describe: 'Netscape cookies.txt file to load, as wget --load-cookies and curl -b read it (not stored)',
    })
    .option('proxy', { type: 'string', describe: 'HTTP proxy URL, e.g. http://user:pass@proxy:3128 (not stored)' });
}

interface SessionArgs {
  header?: string[];
  cookie?: string[];
  cookies?: string;
  proxy?: string;
}

/** The session flags as given, for the library to check (it names them by these flags: SESSION_FLAGS). */
export function sessionOptions(parsed: Record<string, unknown>): SessionOptions {
  const args = parsed as SessionArgs;
  return {
    ...(args.header?.length ? { headers: args.header.map(String) } : {}),
    ...(args.cookie?.length ? { cookies: args.cookie.map(String) } : {}),
    ...(args.cookies !== undefined ? { cookieFile: args.cookies } : {}),
    ...(args.proxy !== undefined ? { proxy: args.proxy } : {}),
  };
}

/** Each session option by the flag that gives it. */
export const SESSION_FLAGS: NameSessionOption = (key) =>
  ({ headers: '--header', cookies: '--cookie', cookieFile: '--cookies', proxy: '--proxy' })[key];

/** What a run says when the last run used settings that were not stored and this one lacks them. */
export function describeMissingSession(missing: SessionNote): string {
  const flags = [
    ...missing.headers.map((name) => `--header '${name}: ...'`),
    ...(missing.cookies ? ['--cookies/--cookie'] : []),
    ...(missing.proxy ? ['--proxy'] : []),
  ];
  return `the last run used ${flags.join(', ')}, which are not stored in the archive (they may hold secrets); give them again if the site needs them`;
}
