import { hostname } from 'node:os';
import type { MergeEvent } from '../merge/run-merge.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';
import type { ArchiveReport, LockOwner } from '../storage/public.js';
import { archiveReport } from './stats.js';

/** What merge() tells onProgress: the merge's own events (the checks before them go to onCheck). */
export type MergeProgress = Exclude<MergeEvent, { type: 'checking' }>;

/** A shard's bodies being checked against their sizes and hashes, before anything is written. */
export type MergeCheck = Extract<MergeEvent, { type: 'checking' }>;

export interface MergeInput {
  /** Archive files to merge: shards of one crawl (crawlWorker), or separate crawls. */
  shards: string[];
  /** The output archive: created, or added to if it exists. */
  db: string;
  /** Told as each shard starts, after each batch of its URLs, and as it ends (or is skipped, already merged). */
  onProgress?: (event: MergeProgress) => void;
}

/** A merge with the knobs the command line has: interruption, notices, batch sizes. */
export interface MergeShardsInput extends MergeInput {
  /** Named in the output while the merge writes it; this process by default. */
  owner?: LockOwner;
  /** Told as each shard's bodies are checked, before anything is written. */
  onCheck?: (event: MergeCheck) => void;
  /** Told once, before merging, when the output is an archive no merge has written to. */
  onNotice?: (message: string) => void;
  /** Aborting it ends the merge between two batches; run it again to go on (`stopped` in the outcome). */
  signal?: AbortSignal;
  /** Shard URLs per transaction; adapted to about a quarter second a batch when absent. */
  batchSize?: number;
  /** A pause after each batch, in ms: slows a merge down on purpose. */
  pauseMs?: number;
}

export interface MergeOutcome {
  /** Ended by the signal: what was merged is kept, and the same merge run again goes on from there. */
  stopped: boolean;
  /** Distinct shard files taken (two paths to one file are one shard). */
  shards: number;
  /** Of those, shards a merge into this archive had already taken whole: left alone. */
  skipped: number;
  /** Responses this merge read from the shards (each URL keeps its newest capture). */
  pagesMerged: number;
}

/** What `crawlite merge` prints: the merged archive's report, and what this merge did. */
export interface MergeReport extends ArchiveReport, Omit<MergeOutcome, 'stopped'> {
  archive: string;
}

function checkInput(input: MergeInput): void {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionError('options', 'give an options object: { shards, db }');
  if (!Array.isArray(input.shards) || input.shards.length === 0 || !input.shards.every((shard) => typeof shard === 'string')) {
    throw new InvalidOptionError('shards', 'shards must be a non-empty array of archive paths');
  }
  if (typeof input.db !== 'string' || input.db === '' || input.db === ':memory:') {
    throw new InvalidOptionError('db', 'db must be the path of the output archive, e.g. "site.sqlite"');
  }
  if (input.onProgress !== undefined && typeof input.onProgress !== 'function')
    throw new InvalidOptionError('onProgress', 'onProgress must be a function');
}

/** Merges without reading the output's report afterwards (on a big archive that read is slow). */
export async function mergeShards(input: MergeShardsInput): Promise<MergeOutcome> {
  const { mergeArchives } = await import('../merge/run-merge.js');
  let skipped = 0;
  let pagesMerged = 0;
  const { signal } = input;
  const result = await mergeArchives({
    shards: input.shards,
    output: input.db,
    owner: input.owner ?? { pid: process.pid, host: hostname() },
    ...(input.batchSize === undefined ? {} : { batchSize: input.batchSize }),
    ...(input.pauseMs === undefined ? {} : { pauseMs: input.pauseMs }),
    ...(signal ? { stopped: () => signal.aborted } : {}),
    ...(input.onNotice ? { onNotice: input.onNotice } : {}),
    onEvent: (event) => {
      if (event.type === 'shard-skipped') skipped += 1;
      if (event.type === 'shard-end') pagesMerged += event.pages;
      if (event.type === 'checking') input.onCheck?.(event);
      else input.onProgress?.(event);
    },
  });
  return { stopped: result.stopped, shards: result.shards, skipped, pagesMerged };
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
  checkInput(input);
  const { stopped: _stopped, ...outcome } = await mergeShards({
    shards: input.shards,
    db: input.db,
    ...(input.onProgress ? { onProgress: input.onProgress } : {}),
  });
  return { archive: input.db, ...outcome, ...archiveReport(input.db) };
}
