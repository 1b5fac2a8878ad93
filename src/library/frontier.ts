import type { CrawlOptions } from '../pipeline/crawl-options.js';
import { checkCrawlOptions, InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import { initFrontier as storeCrawl, type FrontierSeed } from '../pg/frontier-store.js';
import { frontierStatus as readStatus } from '../pg/frontier-status.js';
import { connectFrontier } from '../pg/pg-connect.js';
import { describeTarget } from '../pg/pg-errors.js';
import { resolveRoots } from '../run/resolve-roots.js';
import { sitemapSeeds } from '../run/root-seeds.js';

/** Where the shared frontier lives. */
export interface FrontierConnection {
  /** A PostgreSQL connection string (`postgres://user@host/db`); absent: libpq's PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD. */
  connection?: string;
}

/** A shared crawl: its roots and any crawl option, stored in the frontier for every worker (the command line's defaults). */
export interface InitFrontierInput extends Partial<CrawlOptions>, FrontierConnection {
  /** Start URLs; a root without a scheme gets http://. */
  roots: string[];
}

export interface InitFrontierResult {
  /** The roots as stored: canonical URLs. */
  roots: string[];
  /** The crawl options stored, as given (the workers apply the defaults for the rest). */
  options: Partial<CrawlOptions>;
  /** URLs queued: the roots, and each origin's /sitemap.xml with `sitemaps`. */
  queued: number;
}

export type FrontierState = 'queued' | 'leased' | 'done' | 'failed' | 'skipped';
export type FrontierCounts = Record<FrontierState, number>;

/** What `crawlite frontier status` prints. */
export interface FrontierStatus {
  total: FrontierCounts;
  origins: { origin: string; counts: FrontierCounts }[];
  /** Workers seen in the last minute, with the URLs each holds now. */
  workers: { name: string; secondsAgo: number; leased: number }[];
}

const STATES: FrontierState[] = ['queued', 'leased', 'done', 'failed', 'skipped'];
const NOT_CRAWL_OPTIONS = ['roots', 'connection'];

/** Counts with every state present (0 where none). */
export const allStates = (counts: Record<string, number>): FrontierCounts =>
  Object.fromEntries(STATES.map((state) => [state, counts[state] ?? 0])) as FrontierCounts;

export function checkConnection(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { connection, ... }');
  const { connection } = input as FrontierConnection;
  if (connection !== undefined && (typeof connection !== 'string' || connection === '')) {
    throw new InvalidOptionError(
      'connection',
      'connection must be a PostgreSQL connection string (postgres://user@host/db), or absent for PGHOST etc.',
    );
  }
  return connection;
}

/**
 * Creates the frontier's schema in PostgreSQL, stores the crawl's roots and options and queues the roots,
 * as `crawlite frontier init`. Bad options reject with InvalidOptionError (or InvalidRootError) before
 * connecting; a database that already holds a crawl with FrontierExistsError; no server with PgUnreachableError.
 */
export async function initFrontier(input: InitFrontierInput): Promise<InitFrontierResult> {
  const connection = checkConnection(input);
  if (!Array.isArray(input.roots) || input.roots.length === 0 || !input.roots.every((root) => typeof root === 'string')) {
    throw new InvalidOptionError('roots', 'roots must be a non-empty array of URLs');
  }
  const options = checkCrawlOptions(
    Object.fromEntries(
      Object.entries(input).filter(([key, value]) => value !== undefined && !NOT_CRAWL_OPTIONS.includes(key)),
    ) as Partial<CrawlOptions>,
  );
  // A browser crawl's roots keep their fragments: a hash-routed app's page is named by one.
  const roots = resolveRoots(input.roots, { fragments: options.browser === true });
  const seeds: FrontierSeed[] = roots.map((root) => ({ url: root.url, key: root.key, origin: root.origin, kind: 'page' }));
  if (options.sitemaps)
    seeds.push(...sitemapSeeds(roots).map((seed) => ({ url: seed.url, key: seed.key, origin: seed.origin, kind: 'sitemap' as const })));
  const stored = { roots: roots.map((root) => root.url), options };
  const pool = await connectFrontier(connection, 1);
  try {
    const queued = await storeCrawl(pool, connection, stored, seeds);
    return { ...stored, queued };
  } finally {
    await pool.end();
  }
}

/** Where the frontier is, in words and without its password: the connection URL, or the server PGHOST etc. name. */
export function frontierTarget(input: FrontierConnection = {}): string {
  return describeTarget(checkConnection(input));
}

/**
 * The frontier's URLs by state, overall and per origin, and the workers seen in the last minute, as
 * `crawlite frontier status`. A database without a crawl rejects with NoFrontierError.
 */
export async function frontierStatus(input: FrontierConnection = {}): Promise<FrontierStatus> {
  const connection = checkConnection(input);
  const pool = await connectFrontier(connection, 1);
  try {
    const status = await readStatus(pool, connection);
    return {
      total: allStates(status.total),
      origins: status.origins.map(({ origin, counts }) => ({ origin, counts: allStates(counts) })),
      workers: status.workers,
    };
  } finally {
    await pool.end();
  }
}
