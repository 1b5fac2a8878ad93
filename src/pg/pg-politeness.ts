import type pg from 'pg';
import { leaseLive } from './lease-sql.js';

/** The crawl's politeness, held across all workers of the frontier. */
export interface Politeness {
  /** Requests in flight at most per origin over all workers (--per-host); undefined: no cap across workers. */
  perHost?: number;
  /** The crawl's --delay: a fixed gap between request starts on an origin; overrides Crawl-delay. */
  delayMs?: number;
}

/**
 * How many URLs a claim may take now, and the delay it is paced by (0: none); or, when none, how long
 * until one may (`retryInMs`), or how often to look again while a request claimed elsewhere has not
 * gone out yet (`pollAtMostMs`: the delay, as its sending books the next start a delay later).
 */
export type Admission = { take: number; delayMs: number } | { take: 0; retryInMs?: number; pollAtMostMs?: number };

/** A claim's hold on its URL, as the frontier names it: the row and which claim of it. */
export interface UnsentClaim {
  id: number;
  claims: number;
}

interface PolitenessRow {
  crawl_delay_ms: number | null;
  wait_ms: number;
  in_flight: string;
  unsent_id: string | null;
  unsent_claims: number | null;
}

/**
 * Locks the origin's politeness row (one row, so claims never hold two and
 * cannot deadlock on them) and reads it: the booked start as a wait from
 * now, the live leases as the requests in flight, and the claim whose
 * request has not gone out, if its lease is still live. The read is a
 * statement of its own after the lock, so that a claim that waited on the
 * lock sees what the one it waited for committed (URL rows included: a
 * statement that waits on a row lock sees only that row anew), and times
 * are the server's clock at the read, not the transaction's start.
 */
async function lockOrigin(client: pg.ClientBase, origin: string): Promise<PolitenessRow> {
  await client.query('INSERT INTO origin_politeness (origin) VALUES ($1) ON CONFLICT (origin) DO NOTHING', [origin]);
  await client.query('SELECT 1 FROM origin_politeness WHERE origin = $1 FOR UPDATE', [origin]);
  const { rows } = await client.query<PolitenessRow>(
    `SELECT p.crawl_delay_ms,
       coalesce(greatest(0, ceil(extract(epoch FROM p.next_start_at - clock_timestamp()) * 1000)), 0)::float8 AS wait_ms,
       (SELECT count(*) FROM url WHERE origin = p.origin AND ${leaseLive()}) AS in_flight,
       u.id AS unsent_id, u.claims AS unsent_claims
     FROM origin_politeness p
     LEFT JOIN url u ON u.id = p.unsent_id AND u.claims = p.unsent_claims AND ${leaseLive('u.')}
     WHERE p.origin = $1`,
    [origin],
  );
  return rows[0]!;
}

/**
 * Within a claim's transaction: counts the origin's live leases as the
 * requests in flight there (a dead worker's stop counting when they run
 * out). Under a delay, one URL per claim, and only once the origin's next
 * start is due and no request claimed before has yet to go out: the next
 * start is booked when it does (`markSent`), so the gap counts from the send.
 */
export async function admit(client: pg.ClientBase, origin: string, want: number, politeness: Politeness): Promise<Admission> {
  const row = await lockOrigin(client, origin);
  const delayMs = politeness.delayMs ?? row.crawl_delay_ms ?? 0;
  let take = want;
  if (politeness.perHost !== undefined) take = Math.min(take, politeness.perHost - Number(row.in_flight));
  if (take <= 0) return { take: 0 };
  if (delayMs > 0) {
    if (row.unsent_id !== null) return { take: 0, pollAtMostMs: delayMs };
    if (row.wait_ms > 0) return { take: 0, retryInMs: row.wait_ms };
    take = 1;
  }
  return { take, delayMs };
}

/**
 * Within a retry's transaction: whether it may go out now (the origin's next
 * start is due, and no other claim's request is yet to go out), as for a
 * claim. If so, the retry is marked as the claim whose request is yet to go out.
 */
export async function admitRetry(client: pg.ClientBase, origin: string, retry: UnsentClaim, politeness: Politeness): Promise<Admission> {
  const row = await lockOrigin(client, origin);
  const delayMs = politeness.delayMs ?? row.crawl_delay_ms ?? 0;
  if (delayMs <= 0) return { take: 1, delayMs: 0 };
  const other = row.unsent_id !== null && (Number(row.unsent_id) !== retry.id || row.unsent_claims !== retry.claims);
  if (other) return { take: 0, pollAtMostMs: delayMs };
  if (row.wait_ms > 0) return { take: 0, retryInMs: row.wait_ms };
  await markUnsent(client, origin, retry);
  return { take: 1, delayMs };
}

/** After a claim took a URL under a delay: its request is yet to go out, and holds the origin's next start back until it does. */
export async function markUnsent(client: pg.ClientBase, origin: string, claim: UnsentClaim): Promise<void> {
  await client.query('UPDATE origin_politeness SET unsent_id = $2, unsent_claims = $3 WHERE origin = $1', [origin, claim.id, claim.claims]);
}

/**
 * The request of a claim marked unsent went out: the origin's next request may start only a delay later.
 * One statement on the origin's row (no URL row is locked, so it keeps the order claims lock in);
 * nothing if the mark is no longer this claim's.
 */
export async function markSent(client: pg.ClientBase | pg.Pool, origin: string, claim: UnsentClaim, delayMs: number): Promise<void> {
  await client.query(
    `UPDATE origin_politeness SET next_start_at = clock_timestamp() + $4 * interval '1 millisecond', unsent_id = NULL, unsent_claims = NULL
     WHERE origin = $1 AND unsent_id = $2 AND unsent_claims = $3`,
    [origin, claim.id, claim.claims, delayMs],
  );
}

/** Keeps the Crawl-delay a robots.txt answer gave an origin (null: none), for every worker's claims there. */
export async function storeCrawlDelay(client: pg.ClientBase, origin: string, crawlDelayMs: number | null): Promise<void> {
  await client.query(
    `INSERT INTO origin_politeness (origin, crawl_delay_ms) VALUES ($1, $2)
     ON CONFLICT (origin) DO UPDATE SET crawl_delay_ms = excluded.crawl_delay_ms`,
    [origin, crawlDelayMs],
  );
}
