import type { Database, Statement } from 'better-sqlite3';
import { explainOpenError, openArchive } from '../archive/open-archive.js';
import { LIVE_STALE_MS } from './control-client.js';
import type { RequestRow } from './control-status.js';

// What serve's live page shows of a crawl while it runs, read on a read-only connection. Every
// statement is bounded (a LIMIT on an index walk), so a snapshot costs about the same on an
// archive of a hundred URLs as on one of millions: what a bound cuts is said ("at least").

/** Pages done per bucket of this many seconds, over this many buckets (the last five minutes). */
export const RATE_BUCKET_SECONDS = 5;
export const RATE_BUCKETS = 60;
/** Responses of this run read, newest URL first, to count the pages done lately. */
export const RATE_SCAN_ROWS = 20_000;
/** Responses read past the chart's window, in a row, after which the older ones are not read. */
export const OLDER_IN_A_ROW = 1000;
/** Queued URLs counted by host, and failed or skipped URLs counted by reason, at most. */
export const COUNT_SCAN_ROWS = 100_000;
export const TOP_HOSTS = 10;
export const TOP_REASONS = 20;
export const RECENT_PAGES = 20;
export const SHOWN_EXCLUSIONS = 200;
export const SHOWN_REQUESTS = 20;

export type LiveState = 'running' | 'paused' | 'stopping' | 'ended' | 'gone' | 'never';

export interface LiveCrawl {
  /** 'gone': the row stopped being written (a crawl killed); 'never': no crawl of this crawlite ran on the archive. */
  state: LiveState;
  running: boolean;
  pausedBy: string | null;
  pid: number | null;
  inFlight: number;
  concurrency: number | null;
  perHost: number | null;
  delayMs: number | null;
  startedAt: string | null;
  updatedAt: string | null;
}

export interface LiveSnapshot {
  /** When it was read (ISO 8601). */
  at: string;
  /** The archive has the control tables (schema 20 and later): without them it can be watched, not steered. */
  controls: boolean;
  crawl: LiveCrawl;
  /** Pages done per bucket, oldest first; the last bucket ends at `at`. `cut`: more were done than were read. */
  rate: { bucketSeconds: number; counts: number[]; cut: boolean };
  /** `atLeast`: only the first `limit` queued URLs (in the order the queue holds them) were counted by host. */
  queue: { hosts: Array<{ origin: string; count: number }>; total: number; atLeast: boolean; limit: number };
  /** `atLeast`: only the first `limit` failed or skipped URLs were counted. */
  problems: { reasons: Array<{ state: string; code: string; count: number }>; atLeast: boolean; limit: number };
  recent: Array<{ url: string; status: number; fetchedAt: string }>;
  exclusions: Array<{ pattern: string; addedAt: string }>;
  requests: RequestRow[];
}

interface LiveRow {
  pid: number;
  state: string;
  paused_by: string | null;
  in_flight: number;
  concurrency: number;
  per_host: number;
  delay_ms: number | null;
  started_at: string;
  updated_at: string;
}

const NO_CRAWL: LiveCrawl = {
  state: 'never',
  running: false,
  pausedBy: null,
  pid: null,
  inFlight: 0,
  concurrency: null,
  perHost: null,
  delayMs: null,
  startedAt: null,
  updatedAt: null,
};

/** The crawl as its live row tells it at `now`: a row not written for LIVE_STALE_MS is a crawl that is gone. */
export function liveCrawl(row: LiveRow | undefined, now: number): LiveCrawl {
  if (!row) return NO_CRAWL;
  const updated = Date.parse(row.updated_at);
  const stale = !(now - updated <= LIVE_STALE_MS);
  const state: LiveState = row.state === 'ended' ? 'ended' : stale ? 'gone' : (row.state as LiveState);
  const running = state === 'running' || state === 'paused' || state === 'stopping';
  return {
    state,
    running,
    pausedBy: state === 'paused' ? row.paused_by : null,
    pid: row.pid,
    inFlight: running ? row.in_flight : 0,
    concurrency: row.concurrency,
    perHost: row.per_host,
    delayMs: row.delay_ms,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
  };
}

/** Pages done per bucket, oldest first, of the fetch times given; the last bucket ends at `now`. */
export function rateBuckets(
  fetchedAt: readonly string[],
  now: number,
  bucketSeconds = RATE_BUCKET_SECONDS,
  buckets = RATE_BUCKETS,
): number[] {
  const counts = new Array<number>(buckets).fill(0);
  const span = bucketSeconds * 1000;
  for (const time of fetchedAt) {
    const age = now - Date.parse(time);
    if (!(age >= 0)) {
      // A clock a moment ahead (another process's): this bucket.
      if (age > -span) counts[buckets - 1]! += 1;
      continue;
    }
    const back = Math.floor(age / span);
    if (back < buckets) counts[buckets - 1 - back]! += 1;
  }
  return counts;
}

/**
 * Every statement of a snapshot, each a LIMIT on an index walk (a test reads their plans). Its `?` are the
 * run, or the rows read at most; LIMITs on rows already cut that short are written in.
 */
export const LIVE_VIEW_SQL = {
  lastRun: 'SELECT max(id) AS id FROM run',
  // response_run (run_id, url_id) walked backwards: this run's newest URLs first, whatever the archive's size.
  recentFetches: 'SELECT url_id AS id, fetched_at AS fetchedAt FROM response WHERE run_id = ? ORDER BY url_id DESC LIMIT ?',
  pagesByUrl:
    'SELECT u.url, r.status, r.fetched_at AS fetchedAt FROM response r JOIN url u ON u.id = r.url_id WHERE r.url_id IN (SELECT value FROM json_each(?))',
  // The whole queue by host, when it is within the bound: url_queued_origin covers it, no table row is read.
  queueByHost: `SELECT origin, count(*) AS count FROM (SELECT origin FROM url INDEXED BY url_queued_origin WHERE state = 'queued' LIMIT ?)
    GROUP BY origin ORDER BY count DESC, origin LIMIT ${TOP_HOSTS}`,
  // A queue past the bound: the URLs queued first (url_state walks them in id order), not the first hosts by name,
  // so the hosts counted are those the crawl goes on with.
  queueByHostFirst: `SELECT origin, count(*) AS count FROM (SELECT origin FROM url INDEXED BY url_state WHERE state = 'queued' ORDER BY id LIMIT ?)
    GROUP BY origin ORDER BY count DESC, origin LIMIT ${TOP_HOSTS}`,
  queueCount: "SELECT count(*) AS n FROM (SELECT 1 FROM url WHERE state = 'queued' LIMIT ?)",
  problemsByReason: `SELECT state, coalesce(error_code, '') AS code, count(*) AS count FROM (SELECT state, error_code FROM url WHERE state IN ('failed', 'skipped') LIMIT ?)
    GROUP BY state, code ORDER BY count DESC, code LIMIT ${TOP_REASONS}`,
  problemsCount: "SELECT count(*) AS n FROM (SELECT 1 FROM url WHERE state IN ('failed', 'skipped') LIMIT ?)",
  live: 'SELECT * FROM crawl_live WHERE id = 1',
  exclusions: `SELECT pattern, added_at AS addedAt FROM live_exclusion ORDER BY added_at, pattern LIMIT ${SHOWN_EXCLUSIONS}`,
  requests: `SELECT id, requested_at AS requestedAt, requested_by AS requestedBy, command, argument, applied_at AS appliedAt, outcome
    FROM control_request ORDER BY id DESC LIMIT ${SHOWN_REQUESTS}`,
} as const;

const CONTROL_TABLES =
  "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name IN ('crawl_live', 'live_exclusion', 'control_request')";

/**
 * A read-only view of a crawl as it runs, for serve's live page. Statements are prepared once; those of
 * the control tables once the archive has them (a crawl of this crawlite adds them when it opens an older archive).
 */
export class LiveView {
  private readonly lastRun: Statement;
  private readonly recentFetches: Statement;
  private readonly pagesByUrl: Statement;
  private readonly queueByHost: Statement;
  private readonly queueByHostFirst: Statement;
  private readonly queueCount: Statement;
  private readonly problemsByReason: Statement;
  private readonly problemsCount: Statement;
  private control: { live: Statement; exclusions: Statement; requests: Statement } | undefined;

  private constructor(
    private readonly db: Database,
    private readonly path: string,
  ) {
    this.lastRun = db.prepare(LIVE_VIEW_SQL.lastRun);
    this.recentFetches = db.prepare(LIVE_VIEW_SQL.recentFetches).raw(true);
    this.pagesByUrl = db.prepare(LIVE_VIEW_SQL.pagesByUrl);
    this.queueByHost = db.prepare(LIVE_VIEW_SQL.queueByHost);
    this.queueByHostFirst = db.prepare(LIVE_VIEW_SQL.queueByHostFirst);
    this.queueCount = db.prepare(LIVE_VIEW_SQL.queueCount);
    this.problemsByReason = db.prepare(LIVE_VIEW_SQL.problemsByReason);
    this.problemsCount = db.prepare(LIVE_VIEW_SQL.problemsCount);
    this.prepareControl();
  }

  static open(path: string): LiveView {
    const db = openArchive(path, 'readonly');
    try {
      return new LiveView(db, path);
    } catch (error) {
      db.close();
      return explainOpenError(path, error);
    }
  }

  private prepareControl(): void {
    if (this.control || (this.db.prepare(CONTROL_TABLES).get() as { n: number }).n < 3) return;
    this.control = {
      live: this.db.prepare(LIVE_VIEW_SQL.live),
      exclusions: this.db.prepare(LIVE_VIEW_SQL.exclusions),
      requests: this.db.prepare(LIVE_VIEW_SQL.requests),
    };
  }

  /** The crawl as it stands at `now`, read in one transaction so its parts agree. */
  snapshot(now: Date = new Date()): LiveSnapshot {
    try {
      this.prepareControl();
      return this.db.transaction(() => this.read(now.getTime()))();
    } catch (error) {
      return explainOpenError(this.path, error);
    }
  }

  private read(now: number): LiveSnapshot {
    const control = this.control;
    const run = (this.lastRun.get() as { id: number | null }).id;
    const fetched = run === null ? { times: [], newest: [], cut: false } : this.recentFetched(run, now);
    const counts = rateBuckets(fetched.times, now);
    const recent = (this.pagesByUrl.all(JSON.stringify(fetched.newest.map((row) => row.id))) as LiveSnapshot['recent']).sort((a, b) =>
      a.fetchedAt < b.fetchedAt ? 1 : a.fetchedAt > b.fetchedAt ? -1 : 0,
    );
    const queued = (this.queueCount.get(COUNT_SCAN_ROWS) as { n: number }).n;
    const hosts = (queued < COUNT_SCAN_ROWS ? this.queueByHost : this.queueByHostFirst).all(
      COUNT_SCAN_ROWS,
    ) as LiveSnapshot['queue']['hosts'];
    const reasons = this.problemsByReason.all(COUNT_SCAN_ROWS) as LiveSnapshot['problems']['reasons'];
    const problems = (this.problemsCount.get(COUNT_SCAN_ROWS) as { n: number }).n;
    return {
      at: new Date(now).toISOString(),
      controls: control !== undefined,
      crawl: liveCrawl(control?.live.get() as LiveRow | undefined, now),
      rate: { bucketSeconds: RATE_BUCKET_SECONDS, counts, cut: fetched.cut },
      queue: { hosts, total: queued, atLeast: queued >= COUNT_SCAN_ROWS, limit: COUNT_SCAN_ROWS },
      problems: { reasons, atLeast: problems >= COUNT_SCAN_ROWS, limit: COUNT_SCAN_ROWS },
      recent,
      exclusions: control ? (control.exclusions.all() as LiveSnapshot['exclusions']) : [],
      requests: control ? (control.requests.all() as LiveSnapshot['requests']) : [],
    };
  }

  /**
   * This run's fetch times in the chart's window, and its newest pages, from its newest URLs back: at most
   * RATE_SCAN_ROWS, and no further once OLDER_IN_A_ROW in a row fell before the window (a crawl idle or ended).
   * `cut`: the bound stopped the reading inside the window, so more pages were done than were counted.
   */
  private recentFetched(run: number, now: number): { times: string[]; newest: Array<{ id: number; fetchedAt: string }>; cut: boolean } {
    const window = RATE_BUCKET_SECONDS * RATE_BUCKETS * 1000;
    const times: string[] = [];
    const newest: Array<{ id: number; fetchedAt: string }> = [];
    let read = 0;
    let olderInARow = 0;
    let oldest = now;
    for (const [id, fetchedAt] of this.recentFetches.iterate(run, RATE_SCAN_ROWS) as IterableIterator<[number, string]>) {
      read += 1;
      const at = Date.parse(fetchedAt);
      oldest = Math.min(oldest, at);
      // The newest RECENT_PAGES, kept in order as they come (ties: the higher id, read first, stays ahead).
      if (newest.length < RECENT_PAGES || fetchedAt > newest[newest.length - 1]!.fetchedAt) {
        let i = newest.length;
        while (i > 0 && fetchedAt > newest[i - 1]!.fetchedAt) i -= 1;
        newest.splice(i, 0, { id, fetchedAt });
        if (newest.length > RECENT_PAGES) newest.pop();
      }
      if (now - at <= window) {
        times.push(fetchedAt);
        olderInARow = 0;
      } else if ((olderInARow += 1) >= OLDER_IN_A_ROW) break;
    }
    return { times, newest, cut: read === RATE_SCAN_ROWS && now - oldest < window };
  }

  close(): void {
    this.db.close();
  }
}
