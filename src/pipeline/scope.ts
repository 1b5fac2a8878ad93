import { getDomain } from 'tldts';
import type { Reason, UrlKind } from './ports.js';

/** An exclusion added while the crawl runs: its text as given (rows name it so) and its compiled form. */
export interface LiveExclusion {
  pattern: string;
  regexp: RegExp;
}

export interface ScopeRules {
  roots: URL[];
  lenient: boolean;
  exclude: RegExp[];
  /** Exclusions added while the crawl runs (`crawlite control exclude`). */
  liveExclude?: readonly LiveExclusion[];
  /** When not empty, a page or sitemap URL must match one of these. */
  include?: RegExp[];
  /** Requisites are fetched from any host, not only the roots' sites. */
  requisitesAnyHost?: boolean;
}

const PSL = { allowPrivateDomains: true };

const stripWww = (host: string) => (host.startsWith('www.') ? host.slice(4) : host);

/** Host name and port of a URL, as WHATWG spells them (brackets kept on IPv6, '' for a default port). */
interface HostPort {
  hostname: string;
  port: string;
  /** hostname[:port], for messages. */
  host: string;
}

/**
 * Host and port read from a serialised http(s) origin (`http://[::1]:8080`),
 * which is already WHATWG-normalised: no URL to parse for every link found.
 */
function hostOfOrigin(origin: string): HostPort {
  const host = origin.slice(origin.indexOf('//') + 2);
  const colon = host.lastIndexOf(':');
  // A colon inside brackets belongs to an IPv6 address, not a port.
  if (colon === -1 || colon < host.lastIndexOf(']')) return { hostname: host, port: '', host };
  return { hostname: host.slice(0, colon), port: host.slice(colon + 1), host };
}

function sameSite(url: HostPort, root: URL, lenient: boolean): boolean {
  // Default ports (80, 443) are '' after WHATWG parsing, so http and https of one host compare equal.
  if (url.port !== root.port) return false;
  if (stripWww(url.hostname) === stripWww(root.hostname)) return true;
  if (!lenient) return false;
  // The registrable domain comes from the Public Suffix List, private
  // suffixes included, so a root on example.co.uk accepts shop.example.co.uk
  // but not other.co.uk, and mine.github.io does not accept theirs.github.io.
  const domain = getDomain(root.hostname, PSL);
  return domain !== null && getDomain(url.hostname, PSL) === domain;
}

/** A URL a live exclusion keeps from the crawl: how its row says so (the contract of `crawlite control exclude`). */
export const liveExclusionReason = (pattern: string): Reason => ({ code: 'excluded_live', message: `matches live exclusion ${pattern}` });

/**
 * Why a URL is outside the crawl, or undefined when it is inside. `origin`,
 * when the caller has the URL's normalised origin at hand, saves parsing it.
 */
export function outOfScope(href: string, rules: ScopeRules, target: UrlKind = 'page', origin?: string): Reason | undefined {
  const anyHost = target === 'requisite' && rules.requisitesAnyHost;
  if (!anyHost) {
    const url = hostOfOrigin(origin ?? new URL(href).origin);
    if (!rules.roots.some((root) => sameSite(url, root, rules.lenient))) {
      return { code: 'out_of_scope', message: `${url.host} is not a site of the crawl's roots` };
    }
  }
  const excluded = rules.exclude.find((pattern) => pattern.test(href));
  if (excluded) return { code: 'excluded', message: `matches --exclude ${excluded.source}` };
  const live = rules.liveExclude?.find((exclusion) => exclusion.regexp.test(href));
  if (live) return liveExclusionReason(live.pattern);
  // Requisites are what a page needs to display, so --include does not filter them.
  const include = rules.include ?? [];
  if (target !== 'requisite' && include.length > 0 && !include.some((pattern) => pattern.test(href))) {
    return { code: 'not_included', message: 'matches no --include pattern' };
  }
  return undefined;
}

// Kept apart so that checking options loads no domain list; re-exported for the scope's callers.
export { compilePatterns, InvalidPatternError } from './compile-patterns.js';
