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
    .option('user-agent', { type: 'string', defaultDescription: 'crawlite/<version>', describe: 'User-Agent header' });
}

interface CrawlArgs {
  concurrency?: number;
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
    userAgent: args.userAgent,
  };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as GivenOptions;
}
