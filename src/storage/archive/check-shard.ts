import { isDeepStrictEqual } from 'node:util';
import type { Database as Db } from 'better-sqlite3';
import { NotAShardError, ShardOfOtherCrawlError } from './archive-errors.js';
import { readMetaValue as metaValue } from './meta-value.js';

/** The shared crawl a worker writes for, as its frontier holds it. */
export interface ShardOf {
  /** When the frontier was made (UTC, to the microsecond): tells one frontier from another made with the same roots. */
  frontier: string;
  roots: string[];
  options: Record<string, unknown>;
}

const hasTable = (db: Db, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;

/**
 * Refuses, before a worker writes anything, a file that is not a shard of
 * this crawl: an archive with a crawl or pages of its own (the worker would
 * replace its roots and options and mix another crawl's pages in), or a
 * shard of another frontier. A new or empty file, or this crawl's shard, passes.
 */
export function checkShardOf(db: Db, path: string, expected: ShardOf): void {
  if (metaValue(db, 'shardOf') === undefined) {
    if (metaValue(db, 'roots') !== undefined) throw new NotAShardError(path, 'a crawl of its own');
    if (hasTable(db, 'url') && db.prepare('SELECT 1 FROM url LIMIT 1').get() !== undefined)
      throw new NotAShardError(path, 'pages of its own');
    return;
  }
  const frontier = metaValue(db, 'frontier');
  if (frontier !== undefined) {
    if (frontier !== expected.frontier)
      throw new ShardOfOtherCrawlError(path, `a frontier made ${String(frontier)}`, `this one, made ${expected.frontier}`);
    return;
  }
  // A shard from before shards named their frontier: its roots and options tell.
  const roots = metaValue(db, 'roots');
  if (!isDeepStrictEqual(roots, expected.roots)) {
    throw new ShardOfOtherCrawlError(
      path,
      `roots ${Array.isArray(roots) ? roots.join(' ') : 'unknown'}`,
      `this frontier's, roots ${expected.roots.join(' ')}`,
    );
  }
  if (!isDeepStrictEqual(metaValue(db, 'options'), expected.options))
    throw new ShardOfOtherCrawlError(path, 'other options', "this frontier's");
}
