import { CrawliteError } from '../crawlite-error.js';

/** One cookie as a cookies.txt line holds it. */
export interface CookieLine {
  domain: string;
  /** TRUE in the file: sent to subdomains too (the domain then starts with a dot in most files). */
  includeSubdomains: boolean;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  /** Seconds since the epoch; 0 for a session cookie. */
  expires: number;
  name: string;
  value: string;
}

export class CookieFileError extends CrawliteError {
  constructor(file: string, line: number, reason: string) {
    super('BAD_COOKIE_FILE', `${file} line ${line}: ${reason} (expected the Netscape cookies.txt format that wget and curl read)`);
  }
}

const HTTP_ONLY_PREFIX = '#HttpOnly_';

/**
 * Reads a Netscape cookies.txt (as written by browsers' export add-ons, curl
 * -c and wget --save-cookies): seven tab-separated fields per line; `#` starts
 * a comment except for curl's `#HttpOnly_` prefix.
 */
export function parseCookiesTxt(text: string, file: string): CookieLine[] {
  const cookies: CookieLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    let httpOnly = false;
    if (line.startsWith(HTTP_ONLY_PREFIX)) {
      httpOnly = true;
      line = line.slice(HTTP_ONLY_PREFIX.length);
    } else if (line.trim() === '' || line.startsWith('#')) {
      continue;
    }
    const fields = line.split('\t');
    // A value may be empty; a value with tabs is not representable in the format.
    if (fields.length !== 7) throw new CookieFileError(file, i + 1, `${fields.length} tab-separated fields, not 7`);
    const [domain, flag, path, secure, expires, name, value] = fields as [string, string, string, string, string, string, string];
    const expiry = Number(expires);
    if (!Number.isInteger(expiry) || expiry < 0)
      throw new CookieFileError(file, i + 1, `expiry ${JSON.stringify(expires)} is not a whole number of seconds`);
    if (domain === '') throw new CookieFileError(file, i + 1, 'empty domain');
    cookies.push({
      domain: domain.toLowerCase(),
      includeSubdomains: flag.toUpperCase() === 'TRUE',
      path: path || '/',
      secure: secure.toUpperCase() === 'TRUE',
      httpOnly,
      expires: expiry,
      name,
      value,
    });
  }
  return cookies;
}
