import type { SessionSettings } from '../http/http-fetcher.js';

/** Which session settings a run used, by name only: kept in the archive so a later run can remind the caller. */
export interface SessionNote {
  headers: string[];
  cookies: boolean;
  proxy: boolean;
}

/** Headers, cookies and a proxy, checked by the caller: used for the run, never stored (they may hold secrets). */
export interface RunSession {
  /** Cookies given for the roots go to the hosts of these roots. */
  build(roots: string[]): SessionSettings;
  note: SessionNote;
}

export const NO_SESSION: SessionNote = { headers: [], cookies: false, proxy: false };

/** What the last run used and this one lacks, if anything. */
export function missingSession(previous: SessionNote | undefined, now: SessionNote): SessionNote | undefined {
  if (!previous) return undefined;
  const missing: SessionNote = {
    headers: previous.headers.filter((name) => !now.headers.includes(name)),
    cookies: previous.cookies && !now.cookies,
    proxy: previous.proxy && !now.proxy,
  };
  return missing.headers.length || missing.cookies || missing.proxy ? missing : undefined;
}
