import { Cookie, CookieJar } from 'tough-cookie';
import type { CookieLine } from './cookies-txt.js';

/**
 * The crawl's cookies: those the user gave (a cookies.txt, or `name=value`
 * for the roots' hosts) and those servers set during the run, matched to
 * each request by domain, path, expiry and Secure as a browser would
 * (tough-cookie, RFC 6265). Nothing here is stored in the archive.
 */
export class CrawlCookies {
  private readonly jar = new CookieJar(undefined, { rejectPublicSuffixes: true, looseMode: true });
  /** No cookie was ever set: skip the jar on every request. */
  private empty = true;

  /** Loads cookies.txt entries; expired ones are dropped by the jar. */
  load(lines: CookieLine[]): void {
    for (const line of lines) {
      const domain = line.domain.replace(/^\./, '');
      const cookie = new Cookie({
        key: line.name,
        value: line.value,
        // A host-only cookie has no Domain attribute; tough-cookie keeps it for that exact host.
        domain,
        hostOnly: !line.includeSubdomains,
        path: line.path,
        secure: line.secure,
        httpOnly: line.httpOnly,
        expires: line.expires === 0 ? 'Infinity' : new Date(line.expires * 1000),
      });
      const scheme = line.secure ? 'https' : 'http';
      this.set(cookie, `${scheme}://${domain}${line.path}`);
    }
  }

  /** `name=value` for one host (the crawl's roots), as curl's --cookie sends it. */
  addForHost(pair: string, url: string): void {
    const cookie = Cookie.parse(pair, { loose: true });
    if (cookie) this.set(cookie, url);
  }

  /** The Cookie header for a request, if any cookie applies. */
  header(url: string): string | undefined {
    if (this.empty) return undefined;
    const value = this.jar.getCookieStringSync(url);
    return value === '' ? undefined : value;
  }

  /** Set-Cookie headers of a response, kept for later requests of the run. */
  store(url: string, setCookies: string[]): void {
    for (const value of setCookies) this.set(value, url);
  }

  private set(cookie: Cookie | string, url: string): void {
    try {
      if (this.jar.setCookieSync(cookie, url, { ignoreError: true })) this.empty = false;
    } catch {
      // A cookie a browser would refuse (wrong domain, public suffix) is ignored, as a browser does.
    }
  }
}
