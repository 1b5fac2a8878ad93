import { bodyBytes } from '../archive/body-bytes.js';
import type { Database, Statement } from 'better-sqlite3';
import {
  countedPageSql,
  ownClaimTakesSql,
  requeueRefusedSql,
  STORED_KIND,
  takenOverAsOwn,
  upgradableSql,
} from '../../pipeline/frontier-rules.js';
import type { ClaimedUrl, FrontierPort, Lease, StoredSummary, UrlKind } from '../../pipeline/ports.js';

interface ClaimRow {
  id: number;
  url: string;
  fetch_url: string | null;
  origin: string;
  kind: UrlKind;
  depth: number;
  redirect_hops: number;
  tries: number;
  etag: string | null;
  last_modified: string | null;
}

/**
 * A URL queued again in a later crawl than its stored response's asks for that response's validators;
 * within one crawl (a retry, a page found closer) a URL is fetched unconditionally.
 */
const validator = (name: string) => `(SELECT json_extract(r.headers, '$."${name}"') FROM response r JOIN run rn ON rn.id = r.run_id
   WHERE r.url_id = url.id AND rn.crawl < url.crawl)`;
const RETURNING = `RETURNING id, url, fetch_url, origin, kind, depth, redirect_hops, tries,
  ${validator('etag')} AS etag, ${validator('last-modified')} AS last_modified`;

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
  private readonly claimStmt: Statement<[string, number], ClaimRow>;
  private readonly claimRequisitesStmt: Statement<[string, number], ClaimRow>;
  private readonly nextOrigin: Statement<[string], { origin: string }>;
  private readonly releaseStmt: Statement<[number]>;
  private readonly requeueStmt: Statement<[]>;
  private readonly addRootStmt: Statement<unknown[]>;
  private readonly claimOwnStmt: Statement<unknown[], ClaimRow>;
  private readonly storedStmt: Statement<[string], { status: number; body: Buffer; size: number; location: string | null; due: number }>;
  private readonly fetchedStmt: Statement<[], { n: number }>;
  private readonly requeueRefusedStmt: Statement<[]>;
  private readonly requeueRefusedAtStmt: Statement<[string]>;

  constructor(db: Database, crawl = 1) {
    this.claimStmt = db.prepare(`
      UPDATE url SET state = 'fetching'
      WHERE id IN (SELECT id FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin = ? ORDER BY id LIMIT ?)
      ${RETURNING}`);
    this.claimRequisitesStmt = db.prepare(`
      UPDATE url SET state = 'fetching'
      WHERE id IN (SELECT id FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin = ? AND kind = 'requisite' ORDER BY id LIMIT ?)
      ${RETURNING}`);
    // A skip-scan of the queued index: one lookup per origin, however long the queue.
    this.nextOrigin = db.prepare(
      "SELECT origin FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin > ? ORDER BY origin LIMIT 1",
    );
    this.releaseStmt = db.prepare("UPDATE url SET state = 'queued' WHERE id = ? AND state = 'fetching'");
    this.requeueStmt = db.prepare("UPDATE url SET state = 'queued' WHERE state = 'fetching'");
    this.addRootStmt = db.prepare(`
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, crawl) VALUES (?, ?, ?, ?, 'queued', 0, 0, ${Math.trunc(crawl)})
      ON CONFLICT (url) DO UPDATE SET state = 'queued', depth = 0, error_code = NULL, error = NULL
        WHERE ${upgradableSql({ row: 'url.', queueable: 'TRUE' })}`);
    this.claimOwnStmt = db.prepare(`
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, crawl) VALUES (?, ?, ?, ?, 'fetching', ?, ?, ${Math.trunc(crawl)})
      ON CONFLICT (url) DO UPDATE SET state = 'fetching', kind = excluded.kind
        WHERE url.state NOT IN ('done', 'fetching') AND ${ownClaimTakesSql('url.', '?')}
      ${RETURNING}`);
    this.storedStmt = db.prepare(`
      SELECT r.status, b.data AS body, b.size, r.location, u.state = 'queued' AS due FROM url u JOIN response r ON r.url_id = u.id JOIN body b ON b.id = r.body_id
      WHERE u.url = ? AND u.kind = '${STORED_KIND}'`);
    this.fetchedStmt = db.prepare(`SELECT count(*) AS n FROM url WHERE ${countedPageSql()}`);
    this.requeueRefusedStmt = db.prepare(requeueRefusedSql());
    this.requeueRefusedAtStmt = db.prepare(requeueRefusedSql('?'));
  }

  // The port's methods answer with Promises (a frontier on a server could not answer at once); SQLite's work is done on the call.
  async claimFrom(origin: string, limit: number, only?: 'requisite'): Promise<ClaimedUrl[]> {
    if (limit <= 0) return [];
    return (only ? this.claimRequisitesStmt : this.claimStmt)
      .all(origin, limit)
      .sort((a, b) => a.id - b.id)
      .map(toClaim);
  }

  async queuedOrigins(): Promise<string[]> {
    const origins: string[] = [];
    for (let row = this.nextOrigin.get(''); row; row = this.nextOrigin.get(row.origin)) origins.push(row.origin);
    return origins;
  }

  async release(claim: ClaimedUrl): Promise<void> {
    this.releaseStmt.run(claim.id);
  }

  async claimOwn(url: Pick<ClaimedUrl, 'url' | 'key' | 'origin' | 'kind' | 'depth' | 'redirectHops'>): Promise<ClaimedUrl | undefined> {
    const takeOver = takenOverAsOwn(url.key) ? 1 : 0;
    const row = this.claimOwnStmt.get(
      url.key,
      url.url === url.key ? null : url.url,
      url.origin,
      url.kind,
      url.depth,
      url.redirectHops,
      takeOver,
    );
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
    if (origin !== undefined) return this.requeueRefusedAtStmt.run(origin).changes;
    // Not only when some robots.txt is failed now: the one that failed may have answered since (a run
    // stopped before it queued what it refused), or a re-crawl queued it again.
    return this.requeueRefusedStmt.run().changes;
  }

  /** One process paces its own requests (the crawl's scheduler keeps every gap): there is nothing to share. */
  async sent(): Promise<void> {}

  async paceRetry(): Promise<void> {}

  /** URLs left `fetching` by a run that died were never committed: fetch them again. */
  requeueInFlight(): number {
    return this.requeueStmt.run().changes;
  }

  /** Queues roots not yet in the archive; returns how many were new. */
  addRoots(roots: Root[]): number {
    return roots.reduce(
      (added, root) =>
        added + this.addRootStmt.run(root.key, root.url === root.key ? null : root.url, root.origin, root.kind ?? 'page').changes,
      0,
    );
  }
}
