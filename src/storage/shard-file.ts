import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { explainOpenError } from './open-archive.js';

/** Shards up to this size get SQLite's whole quick_check (well under a second), as an archive does before a crawl writes it. */
const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A shard opened to be checked before a merge reads it: read-only, and as a file someone else may have
 * made. `trusted_schema = OFF` keeps functions with side effects out of its views and triggers,
 * `query_only` refuses any write, and `cell_size_check` turns a malformed cell into an error rather
 * than a read past it.
 */
export function openShardFile(path: string): Db {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    hardenShardConnection(db);
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (error) {
    return explainOpenError(path, error);
  }
}

/** The pragmas of a connection that reads a shard (its own, or the output's the shard is attached to). */
export function hardenShardConnection(db: Db): void {
  db.pragma('trusted_schema = OFF');
  db.pragma('cell_size_check = ON');
  if (db.readonly) db.pragma('query_only = ON');
}

/** What a shard says defines its crawl, as stored (unchecked JSON). */
export interface ShardDefinition {
  roots?: unknown;
  options?: unknown;
  /** Written by a worker of a shared PostgreSQL frontier. */
  workerShard: boolean;
}

/** Reads the roots, options and worker mark of a shard whose schema was checked. */
export function readShardDefinition(db: Db): ShardDefinition {
  const read = (key: string): unknown => {
    const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key);
    if (row === undefined) return undefined;
    try {
      return JSON.parse(row.value) as unknown;
    } catch {
      // Not JSON: the checks that follow refuse it as a value of the wrong kind.
      return row.value;
    }
  };
  const roots = read('roots');
  const options = read('options');
  return { ...(roots === undefined ? {} : { roots }), ...(options === undefined ? {} : { options }), workerShard: read('shardOf') !== undefined };
}

/** The tables a merge reads besides body, whose every row the body check reads (an error there is a damaged body table). */
const MERGED_TABLES = ['meta', 'run', 'url', 'response', 'capture', 'link', 'page_text', 'query_variants'];

/**
 * What in a shard would make the merge fail part-way or drop rows without a word, if anything: a row
 * that breaks its table's declared types, NOT NULL or CHECK constraints (SQLite writes them when told to
 * ignore CHECK, and never checks them on reading), a damaged table, or a capture that names a URL, run or
 * body the shard does not hold. The whole file is checked when small, the tables a merge reads otherwise.
 * `reader`, a read-only connection to the shard, must stay open meanwhile.
 */
export function shardTableProblem(reader: Db, path: string): string | undefined {
  if (!reader.open) throw new Error('shardTableProblem needs the shard held open by a reader');
  // SQLite skips CHECK constraints in quick_check on a read-only connection: the shard is attached to an
  // empty one instead, as the merge attaches it, and `reader` keeps it open so that closing this connection
  // never checkpoints a shard left in WAL mode.
  const checker = new Database(':memory:');
  try {
    checker.pragma('trusted_schema = OFF');
    checker.pragma('cell_size_check = ON');
    checker.pragma('query_only = ON');
    checker.prepare('ATTACH ? AS shard').run(path);
    const tables = statSync(path).size > FULL_CHECK_MAX_BYTES ? MERGED_TABLES : [undefined];
    for (const table of tables) {
      const result = checker.pragma(table ? `shard.quick_check(${table})` : 'shard.quick_check') as { quick_check: string }[];
      const problem = result.map((row) => row.quick_check).find((line) => line !== 'ok');
      if (problem) return `SQLite's check of it says: ${problem}`;
    }
    const dangling = checker.pragma('shard.foreign_key_check') as { table: string; rowid: number; parent: string }[];
    const first = dangling[0];
    if (first) return `${first.table} row ${first.rowid} refers to a ${first.parent} row it does not hold`;
    return undefined;
  } catch (error) {
    return explainOpenError(path, error);
  } finally {
    checker.close();
  }
}

/** The shard's schema version (PRAGMA user_version). */
export const schemaVersionOf = (db: Db): number => db.pragma('user_version', { simple: true }) as number;
