import type pg from 'pg';
import type { Reason } from '../pipeline/ports.js';
import { queryVariantsReason } from '../pipeline/trap-guards.js';

/** A URL with a query, about to be added to the frontier. */
export interface Variant {
  key: string;
  /** Its origin and path. */
  pathKey: string;
  /** Skipped for another reason already: not judged, though counted if new (as the SQLite sink does). */
  skipped: boolean;
}

/**
 * --max-per-path over all workers: judges `variants` (in key order) against
 * the crawl-wide count of URLs added per path, counts the new ones, and
 * returns the keys past the cap with why. The rows of their paths are locked
 * (in path order, so two commits cannot deadlock on them) until the commit,
 * and every URL with a query is added under its path's lock: so which keys
 * are new is known before the insert, and no other commit counts meanwhile.
 */
export async function judgeQueryVariants(client: pg.PoolClient, variants: Variant[], maxPerPath: number): Promise<Map<string, Reason>> {
  const over = new Map<string, Reason>();
  if (variants.length === 0 || maxPerPath <= 0) return over;
  const paths = [...new Set(variants.map((variant) => variant.pathKey))].sort();
  await client.query(
    'INSERT INTO query_variants (path, count) SELECT path, 0 FROM unnest($1::text[]) AS path ORDER BY path ON CONFLICT (path) DO NOTHING',
    [paths],
  );
  const counted = await client.query<{ path: string; count: number }>(
    'SELECT path, count FROM query_variants WHERE path = ANY($1::text[]) ORDER BY path FOR UPDATE',
    [paths],
  );
  const counts = new Map(counted.rows.map((row) => [row.path, row.count]));
  const known = await client.query<{ url: string }>('SELECT url FROM url WHERE url = ANY($1::text[])', [
    variants.map((variant) => variant.key),
  ]);
  const existing = new Set(known.rows.map((row) => row.url));
  const grown = new Set<string>();
  for (const { key, pathKey, skipped } of variants) {
    const count = counts.get(pathKey)!;
    if (!skipped && count >= maxPerPath) over.set(key, queryVariantsReason(maxPerPath, pathKey));
    if (!existing.has(key)) {
      counts.set(pathKey, count + 1);
      grown.add(pathKey);
    }
  }
  if (grown.size > 0) {
    const changed = [...grown].sort();
    await client.query(
      'UPDATE query_variants q SET count = c.count FROM unnest($1::text[], $2::integer[]) AS c(path, count) WHERE q.path = c.path',
      [changed, changed.map((path) => counts.get(path)!)],
    );
  }
  return over;
}
