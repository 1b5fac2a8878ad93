import type pg from 'pg';

/** The crawl's politeness, held across all workers of the frontier. */
export interface Politeness {
  /** Requests in flight at most per origin over all workers (--per-host); undefined: no cap across workers. */
  perHost?: number;
  /** The crawl's --delay: a fixed gap between request starts on an origin; overrides Crawl-delay. */
  delayMs?: number;
}

/** How many URLs a claim may take now, and the gap to book after it; or, when none, how long until one may. */
export type Admission = { take: number; delayMs: number } | { take: 0; retryInMs?: number };

/**
 * Within a claim's transaction: locks the origin's politeness row (one row,
 * so claims never hold two and cannot deadlock on them) and counts its live
 * leases as the requests in flight there; a dead worker's leases stop
 * counting when they run out. Under a delay, one URL per claim, and only once
 * the origin's next start is due. Times are the server's clock at the call,
 * not the transaction's start, so a claim that waited on the lock sees the
 * start booked by the one it waited for.
 */
export async function admit(client: pg.ClientBase, origin: string, want: number, politeness: Politeness): Promise<Admission> {
  await client.query('INSERT INTO origin_politeness (origin) VALUES ($1) ON CONFLICT (origin) DO NOTHING', [origin]);
  const { rows } = await client.query<{ crawl_delay_ms: number | null; wait_ms: number; in_flight: string }>(
    `SELECT p.crawl_delay_ms,
       coalesce(greatest(0, ceil(extract(epoch FROM p.next_start_at - clock_timestamp()) * 1000)), 0)::float8 AS wait_ms,
       (SELECT count(*) FROM url WHERE origin = p.origin AND state = 'leased' AND lease_until > clock_timestamp()) AS in_flight
     FROM origin_politeness p WHERE p.origin = $1 FOR UPDATE OF p`,
    [origin],
  );
  const row = rows[0]!;
  const delayMs = politeness.delayMs ?? row.crawl_delay_ms ?? 0;
  let take = want;
  if (politeness.perHost !== undefined) take = Math.min(take, politeness.perHost - Number(row.in_flight));
  if (take <= 0) return { take: 0 };
  if (delayMs > 0) {
    if (row.wait_ms > 0) return { take: 0, retryInMs: row.wait_ms };
    take = 1;
  }
  return { take, delayMs };
}

/** After a claim took URLs under a delay: the origin's next request may start only that much later. */
export async function bookStart(client: pg.ClientBase, origin: string, delayMs: number): Promise<void> {
  await client.query("UPDATE origin_politeness SET next_start_at = clock_timestamp() + $2 * interval '1 millisecond' WHERE origin = $1", [origin, delayMs]);
}

/** Keeps the Crawl-delay a robots.txt answer gave an origin (null: none), for every worker's claims there. */
export async function storeCrawlDelay(client: pg.ClientBase, origin: string, crawlDelayMs: number | null): Promise<void> {
  await client.query(
    `INSERT INTO origin_politeness (origin, crawl_delay_ms) VALUES ($1, $2)
     ON CONFLICT (origin) DO UPDATE SET crawl_delay_ms = excluded.crawl_delay_ms`,
    [origin, crawlDelayMs],
  );
}
