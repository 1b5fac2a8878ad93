import type pg from 'pg';
import { readCrawl } from './frontier-store.js';

export interface FrontierStatus {
  total: Record<string, number>;
  origins: { origin: string; counts: Record<string, number> }[];
  workers: { name: string; secondsAgo: number; leased: number }[];
}

/** URLs by state, overall and per origin, and the workers seen in the last minute with the URLs each holds. */
export async function frontierStatus(pool: pg.Pool, connection: string | undefined): Promise<FrontierStatus> {
  await readCrawl(pool, connection);
  const { rows } = await pool.query<{ origin: string; state: string; n: string }>(
    'SELECT origin, state, count(*) AS n FROM url GROUP BY origin, state ORDER BY origin',
  );
  const total: Record<string, number> = {};
  const byOrigin = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const n = Number(row.n);
    total[row.state] = (total[row.state] ?? 0) + n;
    const counts = byOrigin.get(row.origin) ?? {};
    counts[row.state] = n;
    byOrigin.set(row.origin, counts);
  }
  const workers = await pool.query<{ name: string; ago: number; leased: string }>(
    `SELECT w.name, extract(epoch FROM now() - w.last_seen)::integer AS ago,
       (SELECT count(*) FROM url u WHERE u.state = 'leased' AND u.lease_owner = w.id) AS leased
     FROM worker w WHERE w.last_seen > now() - interval '1 minute' ORDER BY w.name`,
  );
  return {
    total,
    origins: [...byOrigin].map(([origin, counts]) => ({ origin, counts })),
    workers: workers.rows.map((row) => ({ name: row.name, secondsAgo: Number(row.ago), leased: Number(row.leased) })),
  };
}

/** URLs by state over the whole crawl, for a worker's progress line: one count on the state index, no per-origin split. */
export async function stateTotals(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ state: string; n: string }>({
    name: 'crawlite-state-totals',
    text: 'SELECT state, count(*) AS n FROM url GROUP BY state',
  });
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
}
