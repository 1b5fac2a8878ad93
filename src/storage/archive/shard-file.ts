import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { readMetaValue } from './meta-value.js';
import { explainOpenError } from './open-archive.js';

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
  const roots = readMetaValue(db, 'roots');
  const options = readMetaValue(db, 'options');
  return {
    ...(roots === undefined ? {} : { roots }),
    ...(options === undefined ? {} : { options }),
    workerShard: readMetaValue(db, 'shardOf') !== undefined,
  };
}

/** The shard's schema version (PRAGMA user_version). */
export const schemaVersionOf = (db: Db): number => db.pragma('user_version', { simple: true }) as number;
