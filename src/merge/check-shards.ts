import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkArchiveFile, latestSchemaVersion, loadMigrations, NotAnArchiveError } from '../storage/archive/index.js';
import { inspectShardFile, readMergeOutput, type MergeOutputState } from '../storage/merge/index.js';
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
export type OutputState = MergeOutputState;

export function readOutputState(output: string, shards: string[]): OutputState {
  if (!existsSync(output) || checkArchiveFile(output)) return { progress: new Map() };
  return readMergeOutput(output, shards);
}

/**
 * Reads each shard as a file someone else may have made, before anything is written: of the current
 * schema, every table, index, view and trigger exactly crawlite's (so no SQL of the shard's own runs),
 * roots and options that a crawl would take, and roots of the same crawl as the other shards and the
 * output. Its rows and bodies are checked next (check-shard-rows.ts, verify-shard-bodies.ts).
 */
export function inspectShards(shards: string[], output: { path: string; roots?: string[] }): CheckedDefinition[] {
  const known = latestSchemaVersion(loadMigrations());
  const checked = shards.map((path) =>
    inspectShardFile(path, (shard) => {
      const version = shard.schemaVersion();
      if (version < known) throw new ShardSchemaError(path, version, known);
      const difference = shard.schemaDifference();
      if (difference) throw new ShardAlteredError(path, difference);
      return checkDefinition(path, shard.definition());
    }),
  );
  checkSameCrawl(checked, output);
  return checked;
}
