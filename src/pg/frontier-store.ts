import type pg from 'pg';
import { checkSchema, migratePg } from './pg-migrate.js';
import { FrontierExistsError, NoFrontierError } from './pg-errors.js';

export interface FrontierSeed {
  url: string;
  key: string;
  origin: string;
  kind: 'page' | 'sitemap';
}

export interface StoredCrawl {
  roots: string[];
  options: Record<string, unknown>;
}

/** Creates (or migrates) the schema, stores the crawl and queues its roots, in one transaction. */
export async function initFrontier(
  pool: pg.Pool,
  connection: string | undefined,
  crawl: StoredCrawl,
  seeds: FrontierSeed[],
): Promise<number> {
  const client = await pool.connect();
  try {
    await migratePg(client);
    await client.query('BEGIN');
    try {
      const inserted = await client.query('INSERT INTO crawl (id, roots, options) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING', [
        JSON.stringify(crawl.roots),
        JSON.stringify(crawl.options),
      ]);
      if (inserted.rowCount === 0) throw new FrontierExistsError(connection);
      const queued = await client.query(
        `INSERT INTO url (url, fetch_url, origin, kind, state, depth)
         SELECT key, fetch_url, origin, kind, 'queued', 0 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS seed(key, fetch_url, origin, kind)
         ON CONFLICT (url) DO NOTHING`,
        [
          seeds.map((seed) => seed.key),
          seeds.map((seed) => (seed.url === seed.key ? null : seed.url)),
          seeds.map((seed) => seed.origin),
          seeds.map((seed) => seed.kind),
        ],
      );
      await client.query('COMMIT');
      return queued.rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}

/** The crawl the frontier holds; refuses a database without one or with a schema newer than this code. */
export async function readCrawl(pool: pg.Pool, connection: string | undefined): Promise<StoredCrawl & { made: string }> {
  const client = await pool.connect();
  try {
    if ((await checkSchema(client)) === 0) throw new NoFrontierError(connection);
    // When the frontier was made, in UTC whatever the session's TimeZone, to the microsecond: names this crawl to its shards.
    const { rows } = await client.query<StoredCrawl & { made: string }>(
      `SELECT roots, options, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS made FROM crawl WHERE id = 1`,
    );
    if (!rows[0]) throw new NoFrontierError(connection);
    return rows[0];
  } finally {
    client.release();
  }
}

/** Brings a frontier an older crawlite made up to date, so a crawl under way goes on with the tables this code uses. */
export async function upgradeFrontier(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await migratePg(client);
  } finally {
    client.release();
  }
}

/** Says the worker is alive (its row is created on the first call). */
export async function heartbeat(pool: pg.Pool, id: string, name: string): Promise<void> {
  await pool.query('INSERT INTO worker (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET last_seen = now()', [id, name]);
}

/** Says the worker has ended: requests to steer the workers no longer wait for it. */
export async function workerEnded(pool: pg.Pool, id: string): Promise<void> {
  await pool.query('UPDATE worker SET ended_at = now() WHERE id = $1', [id]);
}
