import type { Database } from 'better-sqlite3';

/** Links to a URL, found on the pages that hold them (no index on targets: the link table is read whole, up to `limit` found). */
export function linksTo(db: Database, url: string, limit: number): Array<{ fromUrl: string; kind: string }> {
  return db
    .prepare<[string, number], { fromUrl: string; kind: string }>(
      'SELECT from_url AS fromUrl, kind FROM links WHERE to_url = ? ORDER BY from_url LIMIT ?',
    )
    .all(url, limit);
}
