import type { Argv } from 'yargs';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../pipeline/crawl-options.js';
import { UsageError } from './usage-error.js';

/** Crawl options as given on the command line: absent when not given, so stored options can show through. */
export type GivenOptions = Partial<CrawlOptions>;

function positiveInteger(flag: string, min = 1) {
  return (value: unknown): number => {
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(number) || number < min) throw new UsageError(`--${flag} must be a whole number of at least ${min}` + (Number.isNaN(number) ? '' : `, got ${String(value)}`));
    return number;
  };
}

/** The options shared by crawl, resume and demo. No yargs defaults: defaults are applied after stored options. */
export function withCrawlFlags<T>(yargs: Argv<T>) {
  return yargs
    .option('concurrency', { alias: 'c', type: 'number', coerce: positiveInteger('concurrency'), defaultDescription: String(DEFAULT_OPTIONS.concurrency), describe: 'requests in flight at most' })
    .option('max-redirects', { type: 'number', coerce: positiveInteger('max-redirects', 0), defaultDescription: String(DEFAULT_OPTIONS.maxRedirects), describe: 'redirects followed from one URL' })
    .option('max-tries', { type: 'number', coerce: positiveInteger('max-tries'), defaultDescription: String(DEFAULT_OPTIONS.maxTries), describe: 'attempts per URL for network errors, timeouts, 429 and 5xx' })
    .option('timeout', { type: 'number', coerce: positiveInteger('timeout'), defaultDescription: `${DEFAULT_OPTIONS.timeoutMs} (ms)`, describe: 'whole-request time limit in ms' })
    .option('retry-delay', { type: 'number', coerce: positiveInteger('retry-delay', 0), defaultDescription: `${DEFAULT_OPTIONS.retryDelayMs} (ms)`, describe: 'base of the exponential backoff between tries, in ms' })
    .option('max-body', { type: 'number', coerce: positiveInteger('max-body'), defaultDescription: `${DEFAULT_OPTIONS.maxBodyBytes} (100 MiB)`, describe: 'largest body kept, in bytes after decompression' })
    .option('lenient', { type: 'boolean', defaultDescription: 'false', describe: "also crawl subdomains of each root's registrable domain" })
    .option('exclude', { type: 'string', array: true, describe: 'regular expression of URLs not to fetch (repeatable)' })
    .option('include', { type: 'string', array: true, describe: 'regular expression a page URL must match (repeatable; any one)' })
    .option('max-depth', { type: 'number', coerce: positiveInteger('max-depth', 0), defaultDescription: 'none', describe: 'link distance from a root beyond which pages are not fetched' })
    .option('max-pages', { type: 'number', coerce: positiveInteger('max-pages'), defaultDescription: 'none', describe: 'pages requested at most (requisites, sitemaps and robots.txt not counted); resume with a larger value goes on' })
    .option('max-per-path', { type: 'number', coerce: positiveInteger('max-per-path', 0), defaultDescription: '10000', describe: 'URLs at most sharing one path with different queries (a trap guard); 0 lifts it' })
    .option('max-path-repeats', { type: 'number', coerce: positiveInteger('max-path-repeats', 0), defaultDescription: '3', describe: 'skip paths whose segments repeat more often in a row (a trap guard); 0 lifts it' })
    .option('max-links-per-page', { type: 'number', coerce: positiveInteger('max-links-per-page', 0), defaultDescription: '10000', describe: 'links read from one page at most, the first in document order (a trap guard); 0 lifts it' })
    .option('per-host', { type: 'number', coerce: positiveInteger('per-host'), defaultDescription: 'the concurrency', describe: 'requests in flight at most on one host' })
    .option('delay', { type: 'number', coerce: positiveInteger('delay', 0), defaultDescription: "robots.txt's Crawl-delay", describe: 'minimum gap in ms between request starts on one host' })
    .option('ignore-robots', { type: 'boolean', defaultDescription: 'false', describe: 'ignore robots.txt, Crawl-delay and nofollow' })
    .option('sitemaps', { type: 'boolean', defaultDescription: 'false', describe: 'seed the crawl from robots.txt Sitemap: lines and /sitemap.xml' })
    .option('requisites', { type: 'boolean', defaultDescription: 'true', describe: 'fetch page requisites (images, scripts, stylesheets, media); --no-requisites to skip them' })
    .option('requisites-any-host', { type: 'boolean', defaultDescription: 'false', describe: 'fetch requisites from any host (CDNs), not only in-scope ones' })
    .option('log', { type: 'string', describe: 'append one JSON line per fetch to this file (url, status, bytes, ms, links, new links, error)' })
    .option('user-agent', { type: 'string', defaultDescription: 'crawlite/<version>', describe: 'User-Agent header, and the token matched in robots.txt' });
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
