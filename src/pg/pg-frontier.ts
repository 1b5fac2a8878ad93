import type pg from 'pg';
import { countedPageSql, ownClaimTakesSql, requeueRefusedSql, takenOverAsOwn } from '../pipeline/frontier-rules.js';
import type { ClaimedUrl, FrontierPort, Lease, StoredSummary, UrlKind } from '../pipeline/ports.js';
import { admit, admitRetry, markSent, markUnsent, type Admission, type Politeness, type UnsentClaim } from './pg-politeness.js';
import { leaseLive, leaseRunOut } from './lease-sql.js';
import { pooledTransaction } from './pooled-transaction.js';

interface ClaimRow {
  id: string;
  url: string;
  fetch_url: string | null;
  origin: string;
  kind: UrlKind;
  depth: number;
  redirect_hops: number;
  tries: number;
  claims: number;
}

/** What a worker's frontier needs to know of itself. */
export interface PgWorker {
  /** Unique per process: leases are held in its name. */
  id: string;
  /** How long a claim is held without renewal before another worker may take it. */
  leaseMs: number;
}

/** A claim held back by another worker's requests in flight polls again after this, doubling up to the most. */
const POLL_MIN_MS = 25;
const POLL_MAX_MS = 400;

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => (clearTimeout(timer), signal?.removeEventListener('abort', done), resolve());
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** How long a claim or retry held back waits before it looks again. */
const waitFor = (admitted: Admission, poll: number) =>
  'retryInMs' in admitted && admitted.retryInMs !== undefined
    ? admitted.retryInMs
    : Math.min(poll, 'pollAtMostMs' in admitted ? (admitted.pollAtMostMs ?? poll) : poll);

const unsentOf = (row: { id: string; claims: number }): UnsentClaim => ({ id: Number(row.id), claims: row.claims });

/** Work: a queued URL, or a leased one whose holder let its lease run out. */
export const CLAIMABLE = `(state = 'queued' OR ${leaseRunOut()})`;

const RETURNING = 'RETURNING u.id, u.url, u.fetch_url, u.origin, u.kind, u.depth, u.redirect_hops, u.tries, u.claims';

/** A lease's token names the worker and which claim of the URL it is, so a URL claimed again is a new lease. */
export const leaseToken = (worker: string, claims: number) => `${worker}#${claims}`;
export const claimsOf = (lease: Lease) => Number(lease.token.slice(lease.token.lastIndexOf('#') + 1));

/**
 * The frontier shared by many workers, in PostgreSQL. A claim leases rows
 * for `leaseMs` (FOR UPDATE SKIP LOCKED, so workers never wait on each
 * other's claims); the lease keeper renews them while they are in flight,
 * and a lease that runs out makes its URL claimable again by anyone.
 * Expiry is judged by the server's clock; a lease's `expiresAt` is counted
 * from before the claim was asked, on this machine's clock, so it errs early.
 */
export class PgFrontier implements FrontierPort {
  /** Per origin, this worker's paced claim whose request has not gone out yet, and the delay to book when it does. */
  private readonly unsent = new Map<string, { claim: UnsentClaim; delayMs: number }>();
  /** Per origin, this worker's latest booking of a send, so a retry of the claim looks only once it has landed. */
  private readonly booking = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly worker: PgWorker,
    private readonly politeness: Politeness = {},
    /** Ends a claim's wait for the origin's politeness (it then answers with nothing). */
    private readonly stopRequested?: AbortSignal,
  ) {}

  private inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return pooledTransaction(this.pool, work);
  }

  /**
   * Claims on an origin within its politeness across all workers: while it
   * holds nothing back, `take` runs in the same transaction with how many
   * it may claim. When politeness allows none and `hasWork` says there is
   * something to wait for, the claim waits (until the booked start is due,
   * or polling while other workers' requests are in flight or yet to go
   * out) rather than answer empty, which would tell the crawl the origin has
   * no work. A URL taken under a delay is marked as yet to go out: the
   * origin's next start is booked when it does (`sent`).
   */
  private async politely<T extends ClaimRow>(
    origin: string,
    want: number,
    take: (client: pg.PoolClient, n: number) => Promise<T[]>,
    hasWork: (client: pg.PoolClient) => Promise<boolean>,
  ): Promise<T[]> {
    for (let poll = POLL_MIN_MS; ; poll = Math.min(poll * 2, POLL_MAX_MS)) {
      const answer = await this.inTransaction(async (client): Promise<{ taken: T[]; delayMs: number } | { wait: Admission }> => {
        const admitted = await admit(client, origin, want, this.politeness);
        if (admitted.take > 0 && 'delayMs' in admitted) {
          const taken = await take(client, admitted.take);
          if (taken.length > 0 && admitted.delayMs > 0) await markUnsent(client, origin, unsentOf(taken[0]!));
          return { taken, delayMs: admitted.delayMs };
        }
        return (await hasWork(client)) ? { wait: admitted } : { taken: [], delayMs: 0 };
      });
      if ('taken' in answer) {
        if (answer.taken.length > 0 && answer.delayMs > 0)
          this.unsent.set(origin, { claim: unsentOf(answer.taken[0]!), delayMs: answer.delayMs });
        return answer.taken;
      }
      if (this.stopRequested?.aborted) return [];
      await sleep(waitFor(answer.wait, poll), this.stopRequested);
    }
  }

  /**
   * The request for `claim` went out. If it is the paced claim marked as yet
   * to go out on its origin, the origin's next start is booked a delay from
   * now, for all workers; otherwise (nothing paced, or another request of
   * this worker's there, claimed before the origin was paced) no query.
   */
  sent(claim: ClaimedUrl): Promise<void> {
    const { origin } = claim;
    const unsent = this.unsentMark(claim);
    if (!unsent) return Promise.resolve();
    this.unsent.delete(origin);
    const booked = markSent(this.pool, origin, unsent.claim, unsent.delayMs);
    const landed = booked.catch(() => undefined);
    this.booking.set(origin, landed);
    void landed.then(() => this.booking.get(origin) === landed && this.booking.delete(origin));
    return booked;
  }

  /**
   * Before a retry of `claim` goes out: waits until the origin's next start
   * is due and no other claim's request is yet to go out there, then marks
   * the retry as yet to go out, so its sending books the gap again. Nothing
   * to wait for where no delay applies; returns at once once `signal` aborts.
   */
  async paceRetry(claim: ClaimedUrl, signal?: AbortSignal): Promise<void> {
    const { origin } = claim;
    const retry = { id: claim.id, claims: claimsOf(claim.lease) };
    // This claim's earlier request may have gone out with its booking still on the way: that booking comes first.
    await this.booking.get(origin);
    const stop = signal ?? this.stopRequested;
    for (let poll = POLL_MIN_MS; !stop?.aborted && !this.stopRequested?.aborted; poll = Math.min(poll * 2, POLL_MAX_MS)) {
      const admitted = await this.inTransaction((client) => admitRetry(client, origin, retry, this.politeness));
      if (admitted.take > 0 && 'delayMs' in admitted) {
        if (admitted.delayMs > 0) this.unsent.set(origin, { claim: retry, delayMs: admitted.delayMs });
        return;
      }
      await sleep(waitFor(admitted, poll), stop);
    }
  }

  private toClaim(row: ClaimRow, askedAt: number): ClaimedUrl {
    return {
      id: Number(row.id),
      url: row.fetch_url ?? row.url,
      key: row.url,
      origin: row.origin,
      kind: row.kind,
      depth: row.depth,
      redirectHops: row.redirect_hops,
      tries: row.tries,
      lease: { token: leaseToken(this.worker.id, row.claims), expiresAt: askedAt + this.worker.leaseMs },
    };
  }

  async claimFrom(origin: string, limit: number, only?: 'requisite'): Promise<ClaimedUrl[]> {
    if (limit <= 0) return [];
    const askedAt = Date.now();
    const work = `origin = $1 AND ${CLAIMABLE} ${only ? "AND kind = 'requisite'" : ''}`;
    const claim = async (client: pg.Pool | pg.PoolClient, n: number, unpacedOnly = '') =>
      (
        await client.query<ClaimRow>(
          `WITH picked AS (
             SELECT id FROM url WHERE ${work} ${unpacedOnly}
             ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
           UPDATE url u SET state = 'leased', lease_owner = $3, lease_until = now() + $4 * interval '1 millisecond', claims = u.claims + 1
           FROM picked WHERE u.id = picked.id
           ${RETURNING}`,
          [origin, n, this.worker.id, this.worker.leaseMs],
        )
      ).rows;
    // Nothing to pace (no --per-host, no --delay, no Crawl-delay stored): one statement, as without politeness.
    const unpaced =
      this.politeness.perHost === undefined && this.politeness.delayMs === undefined
        ? await claim(
            this.pool,
            limit,
            'AND NOT EXISTS (SELECT 1 FROM origin_politeness p WHERE p.origin = $1 AND p.crawl_delay_ms IS NOT NULL)',
          )
        : [];
    const rows =
      unpaced.length > 0
        ? unpaced
        : await this.politely(
            origin,
            limit,
            claim,
            async (client) => (await client.query(`SELECT 1 FROM url WHERE ${work} LIMIT 1`, [origin])).rowCount !== 0,
          );
    return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((row) => this.toClaim(row, askedAt));
  }

  async queuedOrigins(): Promise<string[]> {
    const { rows } = await this.pool.query<{ origin: string }>(
      `SELECT DISTINCT origin FROM url WHERE state IN ('queued', 'leased') AND ${CLAIMABLE}`,
    );
    return rows.map((row) => row.origin);
  }

  async release(claim: ClaimedUrl): Promise<void> {
    this.forgetUnsent(claim);
    await this.pool.query(
      "UPDATE url SET state = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND state = 'leased' AND lease_owner = $2 AND claims = $3",
      [claim.id, this.worker.id, claimsOf(claim.lease)],
    );
  }

  /** Claims a URL this worker is about to fetch of itself (robots.txt): within the origin's politeness too. */
  async claimOwn(url: Pick<ClaimedUrl, 'url' | 'key' | 'origin' | 'kind' | 'depth' | 'redirectHops'>): Promise<ClaimedUrl | undefined> {
    const askedAt = Date.now();
    const takeOver = takenOverAsOwn(url.key);
    const free = (takes: string) => `(u.state NOT IN ('done', 'leased') OR ${leaseRunOut('u.')}) AND ${ownClaimTakesSql('u.', takes)}`;
    const take = async (client: pg.PoolClient) =>
      (
        await client.query<ClaimRow>(
          `INSERT INTO url AS u (url, fetch_url, origin, kind, state, depth, redirect_hops, claims, lease_owner, lease_until)
           VALUES ($1, $2, $3, $4, 'leased', $5, $6, 1, $7, now() + $8 * interval '1 millisecond')
           ON CONFLICT (url) DO UPDATE SET state = 'leased', kind = excluded.kind, claims = u.claims + 1,
             lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
           WHERE ${free('$9::boolean')}
           ${RETURNING}`,
          [
            url.key,
            url.url === url.key ? null : url.url,
            url.origin,
            url.kind,
            url.depth,
            url.redirectHops,
            this.worker.id,
            this.worker.leaseMs,
            takeOver,
          ],
        )
      ).rows;
    const hasWork = async (client: pg.PoolClient) =>
      (
        await client.query(`SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM url u WHERE u.url = $1 AND NOT (${free('$2::boolean')}))`, [
          url.key,
          takeOver,
        ])
      ).rowCount !== 0;
    for (let poll = POLL_MIN_MS; ; poll = Math.min(poll * 2, POLL_MAX_MS)) {
      const rows = await this.politely(url.origin, 1, take, hasWork);
      if (rows[0]) return this.toClaim(rows[0], askedAt);
      // Another worker is fetching it (every worker starting on a site asks for its robots.txt at once):
      // its answer is waited for, not guessed; a dead worker's lease runs out and the URL is free again.
      if (this.stopRequested?.aborted || !(await this.fetchingElsewhere(url.key, takeOver))) return undefined;
      await sleep(poll, this.stopRequested);
    }
  }

  /** Whether another worker is fetching `key` as the crawler's own (a page being fetched is not waited for: it is not ours to take). */
  private async fetchingElsewhere(key: string, takeOver: boolean): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `SELECT 1 FROM url WHERE url = $1 AND ${leaseLive()} AND lease_owner <> $2 AND ${ownClaimTakesSql('', '$3::boolean')}`,
      [key, this.worker.id, takeOver],
    );
    return rowCount !== 0;
  }

  async renew(claims: readonly ClaimedUrl[]): Promise<(Lease | undefined)[]> {
    if (claims.length === 0) return [];
    const askedAt = Date.now();
    // Still ours if no one claimed it since, even if it ran out meanwhile. Rows are locked in id order, as commits lock them.
    const { rows } = await this.pool.query<{ id: string }>(
      `WITH held AS (
         SELECT u.id FROM url u JOIN unnest($1::bigint[], $2::integer[]) AS mine(id, claims) ON u.id = mine.id AND u.claims = mine.claims
         WHERE u.state = 'leased' AND u.lease_owner = $3 ORDER BY u.id FOR UPDATE OF u)
       UPDATE url u SET lease_until = now() + $4 * interval '1 millisecond' FROM held WHERE u.id = held.id
       RETURNING u.id`,
      [claims.map((claim) => claim.id), claims.map((claim) => claimsOf(claim.lease)), this.worker.id, this.worker.leaseMs],
    );
    const kept = new Set(rows.map((row) => Number(row.id)));
    return claims.map((claim) => (kept.has(claim.id) ? { token: claim.lease.token, expiresAt: askedAt + this.worker.leaseMs } : undefined));
  }

  /** Only robots.txt answers (and its redirect hops') are kept here, as the port asks: enough for every worker to obey the rules one fetched. */
  async storedResponse(key: string): Promise<StoredSummary | undefined> {
    const { rows } = await this.pool.query<{ status: number; body: Buffer; location: string | null; state: string }>(
      'SELECT r.status, r.body, r.location, u.state FROM robots r JOIN url u ON u.url = r.url WHERE r.url = $1',
      [key],
    );
    const row = rows[0];
    if (!row) return undefined;
    const stored: StoredSummary = { status: row.status, body: new Uint8Array(row.body), location: row.location };
    return row.state === 'queued' ? { ...stored, due: true } : stored;
  }

  async pagesFetched(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM url WHERE ${countedPageSql()}`);
    return Number(rows[0]!.n);
  }

  async requeueRobotsUnavailable(origin?: string): Promise<number> {
    const result =
      origin === undefined ? await this.pool.query(requeueRefusedSql()) : await this.pool.query(requeueRefusedSql('$1'), [origin]);
    return result.rowCount ?? 0;
  }

  /** This worker's mark of `claim` as the paced claim yet to go out on its origin, if it is that. */
  private unsentMark(claim: ClaimedUrl): { claim: UnsentClaim; delayMs: number } | undefined {
    const unsent = this.unsent.get(claim.origin);
    return unsent && unsent.claim.id === claim.id && unsent.claim.claims === claimsOf(claim.lease) ? unsent : undefined;
  }

  /** A claim given back unsent holds nothing back any more (its lease is gone): there is no send to book. */
  private forgetUnsent(claim: ClaimedUrl): void {
    if (this.unsentMark(claim)) this.unsent.delete(claim.origin);
  }

  /** Gives back every URL this worker leases: called only when none of its claims is in flight. */
  async releaseMine(): Promise<number> {
    this.unsent.clear();
    const result = await this.pool.query(
      "UPDATE url SET state = 'queued', lease_owner = NULL, lease_until = NULL WHERE state = 'leased' AND lease_owner = $1",
      [this.worker.id],
    );
    return result.rowCount ?? 0;
  }

  /** URLs with work left: queued, or leased (by a worker alive or not). The crawl is over when there are none. */
  async unfinished(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>("SELECT count(*) AS n FROM url WHERE state IN ('queued', 'leased')");
    return Number(rows[0]!.n);
  }
}
