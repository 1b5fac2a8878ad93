import { hostname } from 'node:os';
import { mergeArchives, type MergeEvent } from '../merge/run-merge.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import { openArchive } from '../storage/public.js';
import type { ArchiveReport } from '../storage/public.js';

/** What merge() tells onProgress: the merge's own events (the command line alone shows the checks before them). */
export type MergeProgress = Exclude<MergeEvent, { type: 'checking' }>;

export interface MergeInput {
  /** Archive files to merge: shards of one crawl (crawlWorker), or separate crawls. */
  shards: string[];
  /** The output archive: created, or added to if it exists. */
  db: string;
  /** Told as each shard starts, after each batch of its URLs, and as it ends (or is skipped, already merged). */
  onProgress?: (event: MergeProgress) => void;
}

/** What `crawlite merge` prints: the merged archive's report, and what this merge did. */
export interface MergeReport extends ArchiveReport {
  archive: string;
  /** Distinct shard files taken (two paths to one file are one shard). */
  shards: number;
  /** Of those, shards a merge into this archive had already taken whole: left alone. */
  skipped: number;
  /** Responses this merge read from the shards (each URL keeps its newest capture). */
  pagesMerged: number;
}

/**
 * Merges archives into one as `crawlite merge`: each URL once, its newest capture kept, as if crawled at
 * once. Run again after a failure, it goes on where it stopped. Every shard is checked before anything is
 * written: a missing one rejects with ArchivePathError, one that is no archive with NotAnArchiveError, the
 * output among the shards with MergeIntoInputError, a shard a crawl writes with ArchiveBusyError; one whose
 * schema is not crawlite's with ShardAlteredError, a body whose size or hash lies with ShardBodyError, roots or
 * options a crawl would not take with ShardDefinitionError, roots of another crawl with ShardRootsDifferError.
 */
export async function merge(input: MergeInput): Promise<MergeReport> {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { shards, db }');
  if (!Array.isArray(input.shards) || input.shards.length === 0 || !input.shards.every((shard) => typeof shard === 'string')) {
    throw new InvalidOptionError('shards', 'shards must be a non-empty array of archive paths');
  }
  if (typeof input.db !== 'string' || input.db === '' || input.db === ':memory:') {
    throw new InvalidOptionError('db', 'db must be the path of the output archive, e.g. "site.sqlite"');
  }
  if (input.onProgress !== undefined && typeof input.onProgress !== 'function') throw new InvalidOptionError('onProgress', 'onProgress must be a function');
  let skipped = 0;
  let pagesMerged = 0;
  const result = await mergeArchives({
    shards: input.shards,
    output: input.db,
    owner: { pid: process.pid, host: hostname() },
    onEvent: (event) => {
      if (event.type === 'shard-skipped') skipped += 1;
      if (event.type === 'shard-end') pagesMerged += event.pages;
      if (event.type !== 'checking') input.onProgress?.(event);
    },
  });
  const archive = openArchive(input.db);
  try {
    return { archive: input.db, shards: result.shards, skipped, pagesMerged, ...archive.report() };
  } finally {
    archive.close();
  }
}
