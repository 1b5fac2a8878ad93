import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connectFrontier } from '../src/pg/pg-connect.js';
import { PgFrontier } from '../src/pg/pg-frontier.js';
import { PgShardSink, type ShardSink } from '../src/pg/pg-shard-sink.js';
import { initFrontier } from '../src/pg/frontier-store.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import { sleep, within } from './support/wait.js';

noticeIfMissing('pg-pacing');

// Two workers' frontiers on one real PostgreSQL, claiming URLs of one origin that is never fetched:
// the test plays each worker's part (a claim, its request going out, a retry) and times the claims.
const ORIGIN = 'http://pacing.test';
const URLS = 6;
const LEASE_MS = 30_000;

/** A shard that keeps nothing: only the frontier's side of a commit matters here. */
const noShard: ShardSink = {
  commit: async () => ({ newUrls: 0 }),
  commitAll: async (outcomes) => outcomes.map(() => ({ newUrls: 0 })),
  takeBack: () => undefined,
};

describe.skipIf(!POSTGRES_INSTALLED)('pacing across workers counts from when a request went out', () => {
  const pgServer = useCluster();
  const pools: pg.Pool[] = [];

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  });

  /** A database of its own with URLS queued URLs of ORIGIN, and a pool on it. */
  const frontierDb = async (name: string): Promise<pg.Pool> => {
    const url = await pgServer.createDatabase(name);
    const pool = await connectFrontier(url);
    pools.push(pool);
    const seeds = Array.from({ length: URLS }, (_, i) => ({
      url: `${ORIGIN}/${i}`,
      key: `${ORIGIN}/${i}`,
      origin: ORIGIN,
      kind: 'page' as const,
    }));
    await initFrontier(pool, url, { roots: [`${ORIGIN}/0`], options: {} }, seeds);
    return pool;
  };
  const worker = (pool: pg.Pool, id: string, delayMs: number, leaseMs = LEASE_MS) => new PgFrontier(pool, { id, leaseMs }, { delayMs });
  /** A claim under way, and when it answered. */
  const timedClaim = (frontier: PgFrontier) => frontier.claimFrom(ORIGIN, 8).then((claims) => ({ claims, at: Date.now() }));
  /** Room for a busy machine, yet short of LEASE_MS: a claim held until a live lease ran out would show. */
  const bounded = <T>(promise: Promise<T>, what: string) => within(promise, 20_000, what);

  it("holds another worker's claim until a delay after the request went out, however late it went out", async () => {
    const pool = await frontierDb('sent_late');
    const a = worker(pool, 'A', 200);
    const b = worker(pool, 'B', 200);
    const [first] = await a.claimFrom(ORIGIN, 8);
    expect(first).toBeDefined();
    const claimOfB = timedClaim(b);
    // A's request goes out well after its claim: past the delay counted from the claim.
    await sleep(300);
    const sentAt = Date.now();
    await a.sent!(first!);
    const { claims, at } = await bounded(claimOfB, "B's claim");
    expect(claims).toHaveLength(1);
    // The server books the start on its clock when it hears of the send, which is no earlier than sentAt; a timer may fire a ms early.
    expect(at - sentAt).toBeGreaterThanOrEqual(198);
    // Not held past that by much: a few polls (hundreds of ms), many times over on a busy machine.
    expect(at - sentAt).toBeLessThan(5_000);
  });

  it("books the gap from the paced claim's request, not from another request of the same worker on the origin", async () => {
    const pool = await frontierDb('other_request');
    const a = worker(pool, 'A', 200);
    const b = worker(pool, 'B', 200);
    const [paced] = await a.claimFrom(ORIGIN, 8);
    // A request of A's that was claimed before the origin was paced (robots.txt's Crawl-delay not yet stored).
    const [unpaced] = await new PgFrontier(pool, { id: 'A', leaseMs: LEASE_MS }).claimFrom(ORIGIN, 1);
    const claimOfB = timedClaim(b);
    await a.sent!(unpaced!);
    await sleep(300);
    const sentAt = Date.now();
    await a.sent!(paced!);
    const { claims, at } = await bounded(claimOfB, "B's claim");
    expect(claims).toHaveLength(1);
    expect(at - sentAt).toBeGreaterThanOrEqual(198);
  });

  it('lets a claim given back or committed without a request go at once, and a dead worker hold the origin only until its lease runs out', async () => {
    const pool = await frontierDb('unsent');
    // A delay long enough that waiting it out would show, however busy the machine: each claim below takes a
    // few polls (hundreds of ms) and is allowed half of it.
    const DELAY_MS = 10_000;
    const a = worker(pool, 'A', DELAY_MS);
    const b = worker(pool, 'B', DELAY_MS);

    const [released] = await a.claimFrom(ORIGIN, 8);
    const claimOfB = timedClaim(b);
    await sleep(100);
    const releasedAt = Date.now();
    await a.release(released!);
    const afterRelease = await bounded(claimOfB, "B's claim after A's release");
    expect(afterRelease.claims.map((claim) => claim.key)).toEqual([released!.key]);
    expect(afterRelease.at - releasedAt).toBeLessThan(DELAY_MS / 2);

    // B commits its claim unsent (robots.txt refused it, say) through the frontier's commit.
    const claimOfA = timedClaim(a);
    await sleep(100);
    const committedAt = Date.now();
    const sink = new PgShardSink(pool, { id: 'B', leaseMs: LEASE_MS }, noShard, {});
    await sink.commit({ claim: afterRelease.claims[0]!, state: 'skipped', tries: 0, discovered: [] });
    const afterCommit = await bounded(claimOfA, "A's claim after B's commit");
    expect(afterCommit.claims).toHaveLength(1);
    expect(afterCommit.at - committedAt).toBeLessThan(DELAY_MS / 2);

    // A worker that claims and dies (a short lease, never renewed) holds the others back only until its lease runs out.
    const dying = worker(pool, 'C', DELAY_MS, 400);
    await a.release(afterCommit.claims[0]!);
    // Noted before the claim is asked: its lease runs out 400 ms after the database took it, which is later.
    const claimedAt = Date.now();
    const [lost] = await dying.claimFrom(ORIGIN, 8);
    const afterDeath = await bounded(timedClaim(b), "B's claim after C's lease ran out");
    expect(afterDeath.claims.map((claim) => claim.key)).toEqual([lost!.key]);
    expect(afterDeath.at - claimedAt).toBeGreaterThanOrEqual(400 - 2);
    expect(afterDeath.at - claimedAt).toBeLessThan(DELAY_MS / 2);
  });

  it("claims a dead worker's URL when its lease ran out while the claim waited on the origin's lock", async () => {
    const pool = await frontierDb('expired_while_locked');
    const b = worker(pool, 'B', 2_000);
    const dying = worker(pool, 'C', 2_000, 300);
    const [lost] = await dying.claimFrom(ORIGIN, 8);
    // Another worker's claim holds the origin's row: B's claim starts its transaction, then waits on the lock past C's lease.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM origin_politeness WHERE origin = $1 FOR UPDATE', [ORIGIN]);
      const claimOfB = timedClaim(b);
      // Until B's claim is seen waiting on that lock (however slow the machine is to get it there), then past C's lease.
      const waitingOnLock = async () =>
        Number(
          (
            await pgServer.query<{ n: string }>(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'expired_while_locked' AND wait_event_type = 'Lock'",
            )
          )[0]!.n,
        );
      for (let i = 0; i < 400 && (await waitingOnLock()) === 0; i += 1) await sleep(25);
      expect(await waitingOnLock()).toBe(1);
      await sleep(600);
      await holder.query('COMMIT');
      const { claims } = await bounded(claimOfB, "B's claim after the lock");
      // The politeness read saw C's lease run out, so the claim must see it too: C's URL is the first one queued again.
      expect(claims.map((claim) => claim.key)).toEqual([lost!.key]);
    } finally {
      holder.release();
    }
  });

  it("paces a retry after another worker's request, and holds the others until a delay after the retry went out", async () => {
    const pool = await frontierDb('retry');
    const a = worker(pool, 'A', 200);
    const b = worker(pool, 'B', 200);
    const [retried] = await b.claimFrom(ORIGIN, 8);
    await b.sent!(retried!);
    // B's request failed; meanwhile A claims (once the delay from B's request is out) and its request goes out.
    const [ofA] = await bounded(a.claimFrom(ORIGIN, 8), "A's claim");
    await sleep(50);
    const sentAt = Date.now();
    await a.sent!(ofA!);
    await bounded(b.paceRetry!(retried!, new AbortController().signal), "B's retry");
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(198);

    // The retry, once paced, is a request yet to go out: A's next claim waits for it, and a delay more.
    const claimOfA = timedClaim(a);
    await sleep(300);
    const retrySentAt = Date.now();
    await b.sent!(retried!);
    const { claims, at } = await bounded(claimOfA, "A's claim after B's retry");
    expect(claims).toHaveLength(1);
    expect(at - retrySentAt).toBeGreaterThanOrEqual(198);
  });

  it('sends nothing to the database for a request where nothing is paced', async () => {
    const pool = await frontierDb('unpaced');
    const a = new PgFrontier(pool, { id: 'A', leaseMs: LEASE_MS });
    const claims = await a.claimFrom(ORIGIN, 8);
    expect(claims).toHaveLength(URLS);
    const marks = await pool.query('SELECT * FROM origin_politeness');
    expect(marks.rows).toEqual([]);
    // With the pool closed, any query would fail.
    await pool.end();
    await expect(a.sent!(claims[0]!)).resolves.toBeUndefined();
  });
});
