import { openArchive } from '../archive/open-archive.js';
import { openShardFile, readShardDefinition, schemaVersionOf, type ShardDefinition } from '../archive/shard-file.js';
import { readShardProgress, type ShardProgress } from './merge-progress.js';
import { schemaDifference } from './shard-schema.js';

/** What a merge's output already holds, read without writing: its crawl's roots, and how far earlier merges of `shards` got. */
export interface MergeOutputState {
  roots?: string[];
  progress: Map<string, ShardProgress>;
}

/** Reads the state of an existing output archive (one without a meta table holds none). */
export function readMergeOutput(output: string, shards: readonly string[]): MergeOutputState {
  const progress = new Map<string, ShardProgress>();
  const db = openArchive(output, 'readonly');
  try {
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get() !== undefined;
    if (!hasMeta) return { progress };
    for (const shard of shards) {
      const found = readShardProgress(db, shard);
      if (found) progress.set(shard, found);
    }
    const roots = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'roots'").get();
    return { progress, ...(roots ? { roots: JSON.parse(roots.value) as string[] } : {}) };
  } finally {
    db.close();
  }
}

/** A shard file as a merge reads it before anything is written; each read in the order the checks need them. */
export interface ShardFileFacts {
  schemaVersion(): number;
  /** How its tables, indexes, views and triggers differ from crawlite's, if they do (read once its schema is current). */
  schemaDifference(): string | undefined;
  /** Its roots, options and worker mark (read once its schema is checked). */
  definition(): ShardDefinition;
}

/** Opens the shard at `path` as a file someone else may have made (see openShardFile) for `inspect`, and closes it. */
export function inspectShardFile<T>(path: string, inspect: (shard: ShardFileFacts) => T): T {
  const db = openShardFile(path);
  try {
    return inspect({
      schemaVersion: () => schemaVersionOf(db),
      schemaDifference: () => schemaDifference(db),
      definition: () => readShardDefinition(db),
    });
  } finally {
    db.close();
  }
}
