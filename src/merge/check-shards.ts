import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { NotAnArchiveError } from '../storage/archive/index.js';
import { readShardProgress, type ShardProgress } from '../storage/merge/index.js';
import { latestSchemaVersion, loadMigrations } from '../storage/archive/index.js';
import { checkArchiveFile, openArchive } from '../storage/archive/index.js';
import { openShardFile, readShardDefinition, schemaVersionOf } from '../storage/archive/index.js';
import { schemaDifference } from '../storage/merge/index.js';
import { checkDefinition, checkSameCrawl, type CheckedDefinition } from './check-definitions.js';
import { MergeIntoInputError, ShardAlteredError, ShardSchemaError } from './merge-errors.js';

/** A file's identity, so two spellings (a link, `./a` and `a`) of one file are one shard. */
const identity = (path: string): string => {
  const stat = statSync(path);
  return `${stat.dev}:${stat.ino}`;
};

/**
 * The first checks, on the paths: each shard an existing crawlite archive, none the output itself.
 * Returns their absolute paths, each file once, in the order given.
 */
export function checkShards(paths: string[], output: string): string[] {
  const outputId = existsSync(output) ? identity(output) : undefined;
  const seen = new Set<string>();
  const shards: string[] = [];
  for (const path of paths) {
    if (resolve(path) === resolve(output)) throw new MergeIntoInputError(path);
    if (checkArchiveFile(path)) throw new NotAnArchiveError(path, 'an empty file');
    const id = identity(path);
    if (id === outputId) throw new MergeIntoInputError(path);
    if (seen.has(id)) continue;
    seen.add(id);
    shards.push(realpathSync(path));
  }
  return shards;
}

/** What the output already holds, read without writing: its crawl's roots, and how far earlier merges got. */
export interface OutputState {
  roots?: string[];
  progress: Map<string, ShardProgress>;
}

export function readOutputState(output: string, shards: string[]): OutputState {
  const progress = new Map<string, ShardProgress>();
  if (!existsSync(output) || checkArchiveFile(output)) return { progress };
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

/**
 * Reads each shard as a file someone else may have made, before anything is written: of the current
 * schema, every table, index, view and trigger exactly crawlite's (so no SQL of the shard's own runs),
 * roots and options that a crawl would take, and roots of the same crawl as the other shards and the
 * output. Its rows and bodies are checked next (check-shard-rows.ts, verify-shard-bodies.ts).
 */
export function inspectShards(shards: string[], output: { path: string; roots?: string[] }): CheckedDefinition[] {
  const known = latestSchemaVersion(loadMigrations());
  const checked = shards.map((path) => {
    const db = openShardFile(path);
    try {
      const version = schemaVersionOf(db);
      if (version < known) throw new ShardSchemaError(path, version, known);
      const difference = schemaDifference(db);
      if (difference) throw new ShardAlteredError(path, difference);
      return checkDefinition(path, readShardDefinition(db));
    } finally {
      db.close();
    }
  });
  checkSameCrawl(checked, output);
  return checked;
}
