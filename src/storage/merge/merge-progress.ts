import type { Database } from 'better-sqlite3';

/** Which file a shard was when its merge began: a shard changed since is merged again from its start. */
export interface ShardIdentity {
  size: number;
  mtimeMs: number;
}

/** How far the merge of one shard got: a row in meta, written in each batch's transaction. */
export interface ShardProgress extends ShardIdentity {
  /** URL ids of the shard up to this one are merged. */
  lastUrlId: number;
  finished: boolean;
}

const keyOf = (shardPath: string) => `merge:${shardPath}`;

/** The progress recorded for a shard (by its absolute path), if any. */
export function readShardProgress(db: Database, shardPath: string): ShardProgress | undefined {
  const row = db.prepare<[string], { value: string }>('SELECT value FROM main.meta WHERE key = ?').get(keyOf(shardPath));
  return row ? (JSON.parse(row.value) as ShardProgress) : undefined;
}

export function writeShardProgress(db: Database, shardPath: string, progress: ShardProgress): void {
  db.prepare('INSERT INTO main.meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
    keyOf(shardPath),
    JSON.stringify(progress),
  );
}

/** Whether any merge has written to this archive. */
export function hasMergeProgress(db: Database): boolean {
  return db.prepare("SELECT 1 FROM main.meta WHERE key LIKE 'merge:%'").get() !== undefined;
}
