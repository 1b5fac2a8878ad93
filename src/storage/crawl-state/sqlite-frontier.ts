import { bodyBytes } from '../archive/body-bytes.js';
import type { Database, Statement } from 'better-sqlite3';
import { countedPageSql, STORED_KIND, takenOverAsOwn } from '../../pipeline/frontier-rules.js';
import { UrlRows, type ClaimRow } from '../writer/url-rows.js';
import type { ClaimedUrl, FrontierPort, Lease, StoredSummary, UrlKind } from '../../pipeline/ports.js';

/**
 * One archive serves one run at a time (the archive lock), and a run starts
 * by queueing again what an earlier one left `fetching`: a lease here never
 * expires within the run, so renewing and committing always keep it.
 */
const RUN_LEASE: Lease = Object.freeze({ token: 'run', expiresAt: Number.POSITIVE_INFINITY });

const toClaim = (row: ClaimRow): ClaimedUrl => {
  const claim: ClaimedUrl = {
    id: row.id,
    url: row.fetch_url ?? row.url,
    key: row.url,
    origin: row.origin,
    kind: row.kind,
    depth: row.depth,
    redirectHops: row.redirect_hops,
    tries: row.tries,
    lease: RUN_LEASE,
  };
  // json_extract gives a number for a header that reads as one: validators are sent back as received, as text.
  if (row.etag !== null) (claim.validators ??= {}).etag = String(row.etag);
  if (row.last_modified !== null) (claim.validators ??= {}).lastModified = String(row.last_modified);
  return claim;
};

export interface Root {
  url: string;
  key: string;
  origin: string;
  kind?: UrlKind;
}

/**
 * The frontier is the url table: claiming flips queued rows to fetching, one origin at a time.
 * URLs it adds belong to `crawl`, the crawl number of the run.
 */
export class SqliteFrontier implements FrontierPort {
  private readonly urls: UrlRows;
  private readonly nextOrigin: Statement<[string], { origin: string }>;
  private readonly storedStmt: Statement<[string], { status: number; body: Buffer; size: number; location: string | null; due: number }>;
  private readonly fetchedStmt: Statement<[], { n: number }>;

  constructor(db: Database, crawl = 1) {
    this.urls = new UrlRows(db, crawl);
    // A skip-scan of the queued index: one lookup per origin, however long the queue.
    this.nextOrigin = db.prepare(
      "SELECT origin FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin > ? ORDER BY origin LIMIT 1",
    );
    this.storedStmt = db.prepare(`
      SELECT r.status, b.data AS body, b.size, r.location, u.state = 'queued' AS due FROM url u JOIN response r ON r.url_id = u.id JOIN body b ON b.id = r.body_id
      WHERE u.url = ? AND u.kind = '${STORED_KIND}'`);
    this.fetchedStmt = db.prepare(`SELECT count(*) AS n FROM url WHERE ${countedPageSql()}`);
  }

  // The port's methods answer with Promises (a frontier on a server could not answer at once); SQLite's work is done on the call.
  async claimFrom(origin: string, limit: number, only?: 'requisite'): Promise<ClaimedUrl[]> {
    if (limit <= 0) return [];
    return this.urls
      .claim(origin, limit, only)
      .sort((a, b) => a.id - b.id)
      .map(toClaim);
  }

  async queuedOrigins(): Promise<string[]> {
    const origins: string[] = [];
    for (let row = this.nextOrigin.get(''); row; row = this.nextOrigin.get(row.origin)) origins.push(row.origin);
    return origins;
  }

  async release(claim: ClaimedUrl): Promise<void> {
    this.urls.released(claim.id);
  }

  async claimOwn(url: Pick<ClaimedUrl, 'url' | 'key' | 'origin' | 'kind' | 'depth' | 'redirectHops'>): Promise<ClaimedUrl | undefined> {
    const row = this.urls.claimOwn(url, takenOverAsOwn(url.key));
    return row ? toClaim(row) : undefined;
  }

  async renew(claims: readonly ClaimedUrl[]): Promise<(Lease | undefined)[]> {
    return claims.map(() => RUN_LEASE);
  }

  async storedResponse(key: string): Promise<StoredSummary | undefined> {
    const row = this.storedStmt.get(key);
    if (!row) return undefined;
    const { due, size, body, ...rest } = row;
    const stored = { ...rest, body: bodyBytes(body, size) };
    return due ? { ...stored, due: true } : stored;
  }

  async pagesFetched(): Promise<number> {
    return this.fetchedStmt.get()!.n;
  }

  async requeueRobotsUnavailable(origin?: string): Promise<number> {
    // Not only when some robots.txt is failed now (all origins): the one that failed may have answered since (a run
    // stopped before it queued what it refused), or a re-crawl queued it again.
    return this.urls.requeueRobotsRefused(origin);
  }

  /** One process paces its own requests (the crawl's scheduler keeps every gap): there is nothing to share. */
  async sent(): Promise<void> {}

  async paceRetry(): Promise<void> {}

  /** URLs left `fetching` by a run that died were never committed: fetch them again. */
  requeueInFlight(): number {
    return this.urls.requeueInFlight();
  }

  /** Queues roots not yet in the archive; returns how many were new. */
  addRoots(roots: Root[]): number {
    return roots.reduce((added, root) => added + this.urls.root({ ...root, kind: root.kind ?? 'page' }), 0);
  }
}
