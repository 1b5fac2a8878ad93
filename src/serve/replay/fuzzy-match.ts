import type { ArchivedPage, ArchiveReader, CaptureTime } from '../../storage/reader/index.js';
import { captureTimestamp } from '../replay-url.js';
import { archiveKey, captureOf, nearestCapture, timestampMs } from './find-capture.js';

// Replay's fuzzy match for query strings, the common cases of pywb's default rules (pywb/rules.yaml,
// fuzzymatcher.py) and wabac's: a page asks for `app.js?_=1732665600123` or arrives from
// `/?utm_source=mail`, and the archive holds the URL without those parameters, or with other values
// of them; a site's search form asks for `search.html?q=json`, and the archive holds `search.html`. Which parameters do not make another page is data: names (lower-cased) with any value,
// and names whose value is a number (a cache-buster), or any name with a jQuery JSONP callback.

/** Tracking and session parameters: any value. */
const ANY_VALUE = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  'sid',
  'sessionid',
  'session_id',
  'jsessionid',
  'phpsessid',
  'aspsessionid',
  'cfid',
  'cftoken',
]);
const ANY_VALUE_PREFIX = ['utm_'];
/** Cache-busters: when the value is a number (digits, dots, dashes), as pywb's `[\d.-]+`. */
const NUMERIC_VALUE = new Set([
  '_',
  'cb',
  't',
  '_t',
  'ts',
  'timestamp',
  'time',
  'rand',
  'rnd',
  'random',
  'nocache',
  'cachebuster',
  'cachebust',
  'cache_buster',
  'cache',
]);
const NUMBER = /^[\d.-]+$/;
/** jQuery's JSONP callback names (`callback=jQuery1830_1732665600123`), any parameter name. */
const JQUERY_CALLBACK = /^jquery[\d_]+$/i;

/** Whether a query parameter is one a capture of the same page may differ by. */
export function isIgnoredParam(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (ANY_VALUE.has(lower) || ANY_VALUE_PREFIX.some((prefix) => lower.startsWith(prefix))) return true;
  if (JQUERY_CALLBACK.test(value)) return true;
  return NUMBER.test(value) && (NUMERIC_VALUE.has(lower) || lower.includes('cache') || lower.includes('bust'));
}

/** A URL's query without the ignored parameters, in a fixed order: two URLs that show the same page have the same one. */
function significantQuery(search: string): { query: string; ignored: number } {
  const kept: Array<[string, string]> = [];
  let ignored = 0;
  for (const [name, value] of new URLSearchParams(search)) {
    if (isIgnoredParam(name, value)) ignored++;
    else kept.push([name, value]);
  }
  kept.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return { query: new URLSearchParams(kept).toString(), ignored };
}

/** How many of a variant's captures' timelines are read at most: the variants nearest in form come first. */
const MAX_TIMELINES = 20;

/**
 * Extensions of scripts that answer by their query (pywb's `not_exts`): any other file, such as
 * `search.html` or `app.js`, is the same file whatever its query, so a capture with another query or
 * none stands in for it (pywb's default rule, fuzzymatcher.py `match_general_fuzzy_query`).
 */
const QUERY_SIGNIFICANT_EXTENSIONS = new Set(['asp', 'aspx', 'jsp', 'php', 'pl', 'exe', 'dll']);
const EXTENSION = /\.([a-z0-9]{1,8})$/i;

/** Whether a path names a file whose query does not change it: it has an extension, and not a script's. */
function queryIgnoredByPath(pathname: string): boolean {
  const extension = EXTENSION.exec(pathname.slice(pathname.lastIndexOf('/') + 1))?.[1]?.toLowerCase();
  return extension !== undefined && !QUERY_SIGNIFICANT_EXTENSIONS.has(extension);
}

/**
 * The capture a fuzzy match replays for `url`, which has none of its own: of the archive's URLs that
 * are `url` with another query or none (one bounded range on the URL index), those whose query
 * differs from its only by ignored parameters; of their captures, the nearest `timestamp`. On a tie,
 * the URL with fewer ignored parameters (the plain one) wins. When none qualifies and the path is a
 * file whose query does not matter (`search.html?q=json&area=default`, a site's own search page), any
 * of those URLs, the nearest in time, the shortest query on a tie. Undefined when none qualifies.
 */
export function fuzzyCapture(archive: ArchiveReader, url: string, timestamp: string): ArchivedPage | undefined {
  const key = archiveKey(url);
  if (key === undefined) return undefined;
  const parsed = new URL(key);
  const wanted = significantQuery(parsed.search).query;
  parsed.search = '';
  const variants = archive
    .queryVariants(parsed.href)
    .filter((variant) => variant !== key)
    .map((variant) => ({ variant, ...significantQuery(new URL(variant).search) }));
  const sameQuery = variants.filter((variant) => variant.query === wanted).sort((a, b) => a.ignored - b.ignored);
  const found = nearestOf(
    archive,
    sameQuery.map(({ variant }) => variant),
    timestamp,
  );
  if (found || !queryIgnoredByPath(parsed.pathname)) return found;
  const anyQuery = variants.map(({ variant }) => variant).sort((a, b) => a.length - b.length);
  return nearestOf(archive, anyQuery, timestamp);
}

/** Of the captures of the first MAX_TIMELINES `variants`, the one nearest `timestamp`; on a tie, the earlier variant's. */
function nearestOf(archive: ArchiveReader, variants: string[], timestamp: string): ArchivedPage | undefined {
  const wantedMs = timestampMs(timestamp);
  let best: { variant: string; time: CaptureTime; distance: number } | undefined;
  for (const variant of variants.slice(0, MAX_TIMELINES)) {
    const time = nearestCapture(archive.captureTimes(variant), timestamp);
    if (!time) continue;
    const distance = Math.abs(timestampMs(captureTimestamp(time.fetchedAt)) - wantedMs);
    if (!best || distance < best.distance) best = { variant, time, distance };
  }
  return best && captureOf(archive, best.variant, best.time);
}
