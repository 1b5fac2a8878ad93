import type pg from 'pg';
import { afterAll, describe } from 'vitest';
import { initFrontier } from '../../src/pg/frontier-store.js';
import { connectFrontier } from '../../src/pg/pg-connect.js';
import { PgFrontier } from '../../src/pg/pg-frontier.js';
import { PgShardSink } from '../../src/pg/pg-shard-sink.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { ShardPageSink } from '../../src/storage/crawl-state/shard-page-sink.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import type { UrlState } from '../../src/pipeline/ports.js';
import { readArchive, tempDir } from '../support/archive.js';
import { describeFrontierContract, type Worker } from '../support/frontier-contract.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from '../support/postgres.js';

noticeIfMissing('frontier-contract/pg-frontier');

const LEASE_MS = 60_000;

describe.skipIf(!POSTGRES_INSTALLED)('PostgreSQL', () => {
  const cluster = useCluster();
  const tmp = tempDir();
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
    tmp.cleanup();
  });
  let frontiers = 0;
  let shared: Promise<pg.Pool> | undefined;
  const frontierPool = async () => {
    const url = await cluster.createDatabase('contract');
    const pool = await connectFrontier(url);
    pools.push(pool);
    await initFrontier(pool, url, { roots: [], options: {} }, []);
    return pool;
  };

  describeFrontierContract('the PostgreSQL frontier with shard sinks', {
    capabilities: {
      expiringLeases: true,
      keepsSkipped: true,
      storesPages: true,
      limits: true,
      robotsRequeue: true,
      distinctLeases: true,
      pacesAcrossWorkers: true,
    },
    async make(limits) {
      const n = (frontiers += 1);
      const pool = await (shared ??= frontierPool());
      // One database for the file (making one per case costs more than the case): each case starts from an empty frontier.
      await pool.query('TRUNCATE url, robots, query_variants, origin_politeness, worker RESTART IDENTITY');
      const shards: string[] = [];
      const closers: (() => void)[] = [];
      /** A worker as `crawlite worker` makes one: its frontier, and its sink into a shard of its own. */
      const worker = (id: string): Worker => {
        const path = tmp.path(`contract-${n}-${id}.sqlite`);
        const db = openArchive(path, 'create');
        closers.push(() => db.close());
        shards.push(path);
        const me = { id, leaseMs: LEASE_MS };
        const pages = new SqlitePageSink(db, path, new CrawlRecord(db).startRun({}, new Date()), { maxDepth: limits.maxDepth });
        return {
          frontier: new PgFrontier(pool, me, { delayMs: limits.delayMs }),
          sink: new PgShardSink(pool, me, new ShardPageSink(db, path, pages), limits),
        };
      };
      const first = worker('A');
      return {
        ...first,
        async seed(urls) {
          // As initFrontier queues roots: in order, at depth 0.
          for (const key of urls) {
            await pool.query("INSERT INTO url (url, origin, kind, state, depth) VALUES ($1, $2, 'page', 'queued', 0)", [
              key,
              new URL(key).origin,
            ]);
          }
        },
        async row(key) {
          const { rows } = await pool.query<{ state: string; depth: number; code: string | null }>(
            'SELECT state, depth, error_code AS code FROM url WHERE url = $1',
            [key],
          );
          const row = rows[0];
          return row && { state: (row.state === 'leased' ? 'fetching' : row.state) as UrlState, depth: row.depth, code: row.code };
        },
        pages: async (key) =>
          shards.flatMap((path) =>
            readArchive<{ status: number; body: Buffer }>(path, 'SELECT status, body FROM pages WHERE url = ?', key).map((page) => ({
              status: page.status,
              body: Buffer.from(page.body).toString(),
            })),
          ),
        links: async (key) =>
          shards
            .flatMap((path) =>
              readArchive<{ to_url: string }>(path, 'SELECT to_url FROM links WHERE from_url = ?', key).map((link) => link.to_url),
            )
            .sort(),
        second: async () => worker('B'),
        async expireLeases() {
          await pool.query("UPDATE url SET lease_until = now() - interval '1 second' WHERE state = 'leased'");
        },
        async close() {
          for (const close of closers) close();
        },
      };
    },
  });
});
