import type { Reason } from './ports.js';

export interface TrapSettings {
  /** Longest URL fetched, in characters. */
  maxUrlLength: number;
  /** A run of 1 to 5 path segments repeated more than this many times in a row is a trap; 0 turns the guard off. */
  maxPathRepeats: number;
}

/**
 * The longest consecutive repetition of any run of 1..5 segments, e.g. 3 for
 * /a/b/a/b/a/b. Linear: k segments matching the ones p before them form
 * floor(k / p) + 1 repetitions of a run of length p.
 */
function longestRepeat(segments: string[]): number {
  let longest = 1;
  for (let period = 1; period <= 5; period += 1) {
    let matched = 0;
    for (let k = period; k < segments.length; k += 1) {
      matched = segments[k] === segments[k - period] ? matched + 1 : 0;
      longest = Math.max(longest, Math.floor(matched / period) + 1);
    }
  }
  return longest;
}

/** The path of a normalised absolute URL, without parsing it again (this runs for every link found). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** How many slashes `path` holds, counting no further than `atMost`. */
function slashes(path: string, atMost: number): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1 && count < atMost; at = path.indexOf('/', at + 1)) count += 1;
  return count;
}

/**
 * Why a URL looks like a crawler trap, or undefined. Calendars and growing
 * query strings are bounded by --max-depth, --max-pages and the per-path
 * query cap kept by the archive; these catch what grows in the URL itself.
 */
export function trapReason(url: string, settings: TrapSettings): Reason | undefined {
  if (url.length > settings.maxUrlLength) {
    return { code: 'url_too_long', message: `URL of ${url.length} characters is longer than ${settings.maxUrlLength}` };
  }
  if (settings.maxPathRepeats > 0) {
    const path = pathOf(url);
    // Each segment follows a slash, so a path with few slashes cannot repeat more often than that: most URLs stop here.
    if (slashes(path, settings.maxPathRepeats + 1) <= settings.maxPathRepeats) return undefined;
    const segments = path.split('/').filter((segment) => segment !== '');
    const repeats = longestRepeat(segments);
    if (repeats > settings.maxPathRepeats) {
      return {
        code: 'trap_repeated_path',
        message: `path segments repeat ${repeats} times in a row (--max-path-repeats ${settings.maxPathRepeats})`,
      };
    }
  }
  return undefined;
}

/** Why a URL with a query is left out: its path already has --max-per-path of them. One wording, whichever store counts. */
export const queryVariantsReason = (maxPerPath: number, pathKey: string): Reason => ({
  code: 'trap_query_variants',
  message: `more than ${maxPerPath} URLs share the path ${pathKey} (--max-per-path)`,
});
