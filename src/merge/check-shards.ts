import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { NotAnArchiveError } from '../storage/archive-errors.js';
import { latestSchemaVersion, loadMigrations } from '../storage/migrate.js';
import { checkArchiveFile, openArchive } from '../storage/open-archive.js';
import { MergeIntoInputError, ShardSchemaError } from './merge-errors.js';

/** A file's identity, so two spellings (a link, `./a` and `a`) of one file are one shard. */
const identity = (path: string): string => {
  const stat = statSync(path);
  return `${stat.dev}:${stat.ino}`;
};

/**
 * Checks every shard before anything is written: each an existing crawlite archive of the current
 * schema, none the output itself. Returns their absolute paths, each file once, in the order given.
 */
export function checkShards(paths: string[], output: string): string[] {
  const known = latestSchemaVersion(loadMigrations());
  const outputId = existsSync(output) ? identity(output) : undefined;
  const seen = new Set<string>();
  const shards: string[] = [];
  for (const path of paths) {
    if (resolve(path) === resolve(output)) throw new MergeIntoInputError(path);
    if (checkArchiveFile(path)) throw new NotAnArchiveError(path, 'an empty file');
    const id = identity(path);
    if (id === outputId) throw new MergeIntoInputError(path);
    const db = openArchive(path, 'readonly');
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version < known) throw new ShardSchemaError(path, version, known);
    } finally {
      db.close();
    }
    if (seen.has(id)) continue;
    seen.add(id);
    shards.push(realpathSync(path));
  }
  return shards;
}
