import type { Argv } from 'yargs';
import { DEFAULT_OPTIONS, MAX_RETRY_AFTER_MS, type CrawlOptions } from '../pipeline/crawl-options.js';
import { UsageError } from './usage-error.js';

/** Crawl options as given on the command line: absent when not given, so stored options can show through. */
export type GivenOptions = Partial<CrawlOptions>;

/** The longest wait any option may ask for: a day, well below setTimeout's limit of 2^31-1 ms (about 24.8 days). */
const MAX_MS = 24 * 60 * 60 * 1000;
/** Counts (pages, depth, links) beyond this are no limit at all in practice, and stay exact in JSON and SQLite. */
const MAX_COUNT = 1_000_000_000;
/** Requests in flight: far above what one process on one machine can keep busy. */
const MAX_IN_FLIGHT = 1_000;
/** SQLite's largest blob (SQLITE_MAX_LENGTH): a bigger body could not be stored. */
const MAX_BODY_BYTES = 1_000_000_000;

/** The range each numeric flag accepts, and the unit its message names. */
export const NUMERIC_FLAGS = {
  concurrency: { min: 1, max: MAX_IN_FLIGHT, unit: '' },
  'per-host': { min: 1, max: MAX_IN_FLIGHT, unit: '' },
  'max-redirects': { min: 0, max: 100, unit: '' },
  'max-tries': { min: 1, max: 100, unit: '' },
  timeout: { min: 1, max: MAX_MS, unit: ' of ms' },
  'retry-delay': { min: 0, max: MAX_RETRY_AFTER_MS, unit: ' of ms' },
  delay: { min: 0, max: MAX_MS, unit: ' of ms' },
  'max-body': { min: 1, max: MAX_BODY_BYTES, unit: ' of bytes' },
  'max-depth': { min: 0, max: MAX_COUNT, unit: '' },
  'max-pages': { min: 1, max: MAX_COUNT, unit: '' },
  'max-per-path': { min: 0, max: MAX_COUNT, unit: '' },
  'max-path-repeats': { min: 0, max: MAX_COUNT, unit: '' },
  'max-links-per-page': { min: 0, max: MAX_COUNT, unit: '' },
} as const;

export type NumericFlag = keyof typeof NUMERIC_FLAGS;

function wholeNumber(flag: NumericFlag) {
  const { min, max, unit } = NUMERIC_FLAGS[flag];
  return (value: unknown): number => {
    // yargs hands over an array when a flag is repeated; the last one given wins, as for strings.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    const number = typeof last === 'number' ? last : Number(last);
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      // yargs has already turned text that is no number into NaN: the text itself is gone.
      const got = Number.isNaN(number) ? 'something else' : String(last);
      throw new UsageError(`--${flag} must be a whole number${unit} from ${min} to ${max}, got ${got}`);
    }
    return number;
  };
}

/** Which command the flags are for: resume's unset options are the stored ones, not the defaults. */
export type FlagsFor = 'new' | 'resume';

/** The options shared by crawl, resume and demo. No yargs defaults: defaults are applied after stored options. */
export function withCrawlFlags<T>(yargs: Argv<T>, flagsFor: FlagsFor = 'new') {
  const shown = (text: string) => (flagsFor === 'resume' ? 'stored' : text);
  const number = (flag: NumericFlag, describe: string, defaultDescription: string) =>
    ({ type: 'number', coerce: wholeNumber(flag), defaultDescription: shown(defaultDescription), describe }) as const;
  return yargs
    .option('verbose', { type: 'boolean', describe: 'log every fetch; show stack traces on errors' })
    .option('concurrency', { alias: 'c', ...number('concurrency', 'requests in flight at most', String(DEFAULT_OPTIONS.concurrency)) })
    .option('max-redirects', number('max-redirects', 'redirects followed from one URL', String(DEFAULT_OPTIONS.maxRedirects)))
    .option('max-tries', number('max-tries', 'attempts per URL for network errors, timeouts, 429 and 5xx', String(DEFAULT_OPTIONS.maxTries)))
    .option('timeout', number('timeout', 'whole-request time limit in ms', `${DEFAULT_OPTIONS.timeoutMs} (ms)`))
    .option('retry-delay', number('retry-delay', 'base of the exponential backoff between tries, in ms (at most 60000)', `${DEFAULT_OPTIONS.retryDelayMs} (ms)`))
    .option('max-body', number('max-body', 'largest body kept, in bytes after decompression', `${DEFAULT_OPTIONS.maxBodyBytes} (100 MiB)`))
    .option('lenient', { type: 'boolean', defaultDescription: shown('false'), describe: "also crawl subdomains of each root's registrable domain" })
    .option('exclude', { type: 'string', array: true, defaultDescription: shown('none'), describe: 'regular expression of URLs not to fetch (repeatable)' })
    .option('include', { type: 'string', array: true, defaultDescription: shown('none'), describe: 'regular expression a page URL must match (repeatable; any one)' })
    .option('max-depth', number('max-depth', 'link distance from a root beyond which pages are not fetched', 'none'))
    .option('max-pages', number('max-pages', 'pages requested at most (requisites, sitemaps and robots.txt not counted); resume with a larger value goes on', 'none'))
    .option('max-per-path', number('max-per-path', 'URLs at most sharing one path with different queries (a trap guard); 0 lifts it', String(DEFAULT_OPTIONS.maxPerPath)))
    .option('max-path-repeats', number('max-path-repeats', 'skip paths whose segments repeat more often in a row (a trap guard); 0 lifts it', String(DEFAULT_OPTIONS.maxPathRepeats)))
    .option('max-links-per-page', number('max-links-per-page', 'distinct URLs read from one page, stylesheet or sitemap at most, the first in document order (a trap guard); 0 lifts it', String(DEFAULT_OPTIONS.maxLinksPerPage)))
    .option('per-host', number('per-host', 'requests in flight at most on one host', 'the concurrency'))
    .option('delay', number('delay', 'minimum gap in ms between request starts on one host', "robots.txt's Crawl-delay"))
    .option('ignore-robots', { type: 'boolean', defaultDescription: shown('false'), describe: 'ignore robots.txt, Crawl-delay and nofollow' })
    .option('sitemaps', { type: 'boolean', defaultDescription: shown('false'), describe: 'seed the crawl from robots.txt Sitemap: lines and /sitemap.xml' })
    .option('requisites', { type: 'boolean', defaultDescription: shown('true'), describe: 'fetch page requisites (images, scripts, stylesheets, media); --no-requisites to skip them' })
    .option('requisites-any-host', { type: 'boolean', defaultDescription: shown('false'), describe: 'fetch requisites from any host (CDNs), not only in-scope ones' })
    .option('log', { type: 'string', describe: 'append one JSON line per fetch to this file (url, status, bytes, ms, links, new links, error)' })
    .option('user-agent', { type: 'string', defaultDescription: shown('crawlite/<version>'), describe: 'User-Agent header, and the token matched in robots.txt' });
}

interface CrawlArgs {
  concurrency?: number;
  include?: string[];
  maxDepth?: number;
  maxPages?: number;
  maxPerPath?: number;
  maxPathRepeats?: number;
  maxLinksPerPage?: number;
  perHost?: number;
  delay?: number;
  ignoreRobots?: boolean;
  sitemaps?: boolean;
  requisites?: boolean;
  requisitesAnyHost?: boolean;
  maxRedirects?: number;
  maxTries?: number;
  timeout?: number;
  retryDelay?: number;
  maxBody?: number;
  lenient?: boolean;
  exclude?: string[];
  userAgent?: string;
}

/** Only the options the user typed. */
export function givenOptions(parsed: Record<string, unknown>): GivenOptions {
  const args = parsed as CrawlArgs;
  const given: GivenOptions = {
    concurrency: args.concurrency,
    maxRedirects: args.maxRedirects,
    maxTries: args.maxTries,
    timeoutMs: args.timeout,
    retryDelayMs: args.retryDelay,
    maxBodyBytes: args.maxBody,
    lenient: args.lenient,
    exclude: args.exclude,
    include: args.include,
    maxDepth: args.maxDepth,
    maxPages: args.maxPages,
    maxPerPath: args.maxPerPath,
    maxPathRepeats: args.maxPathRepeats,
    maxLinksPerPage: args.maxLinksPerPage,
    perHost: args.perHost,
    delayMs: args.delay,
    robots: args.ignoreRobots === undefined ? undefined : !args.ignoreRobots,
    sitemaps: args.sitemaps,
    requisites: args.requisites,
    requisitesAnyHost: args.requisitesAnyHost,
    userAgent: args.userAgent,
  };
  if (given.requisites === false && given.requisitesAnyHost) throw new UsageError('--requisites-any-host conflicts with --no-requisites');
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as GivenOptions;
}

/** The flag each stored option comes from, for messages that must read like the command line. */
const FLAG_OF: Record<keyof CrawlOptions, string> = {
  concurrency: 'concurrency',
  maxRedirects: 'max-redirects',
  maxTries: 'max-tries',
  timeoutMs: 'timeout',
  retryDelayMs: 'retry-delay',
  maxBodyBytes: 'max-body',
  lenient: 'lenient',
  exclude: 'exclude',
  include: 'include',
  maxDepth: 'max-depth',
  maxPages: 'max-pages',
  maxPerPath: 'max-per-path',
  maxPathRepeats: 'max-path-repeats',
  maxLinksPerPage: 'max-links-per-page',
  perHost: 'per-host',
  delayMs: 'delay',
  robots: 'ignore-robots',
  sitemaps: 'sitemaps',
  requisites: 'requisites',
  requisitesAnyHost: 'requisites-any-host',
  userAgent: 'user-agent',
};

const quoted = (text: string) => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** An option as it would be typed: `--max-pages 300`, `--ignore-robots`, `--exclude a --exclude b`. */
export function asFlag(key: keyof CrawlOptions, value: unknown): string {
  const flag = FLAG_OF[key];
  // robots is stored the other way round from its flag.
  const on = key === 'robots' ? value === false : value === true;
  if (typeof value === 'boolean') return on ? `--${flag}` : `--no-${flag}`;
  if (Array.isArray(value)) return value.length ? value.map((item) => `--${flag} ${quoted(String(item))}`).join(' ') : `no --${flag}`;
  return `--${flag} ${quoted(String(value))}`;
}

/** A stored value in words, for "(was ...)". */
export function asValue(key: keyof CrawlOptions, value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  if (typeof value === 'boolean') return (key === 'robots' ? !value : value) ? 'on' : 'off';
  if (Array.isArray(value)) return value.map((item) => quoted(String(item))).join(', ');
  return quoted(String(value));
}
