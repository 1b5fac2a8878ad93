import { existsSync, statSync } from 'node:fs';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { ArchiveBusyError } from '../storage/archive/index.js';
import { ArchiveLock } from '../storage/archive/index.js';
import type { LockOwner } from '../storage/public.js';
import { describeHolder } from '../storage/archive/index.js';
import { MergeOutput, type ShardIdentity } from '../storage/merge/index.js';
import { checkShards, inspectShards, readOutputState } from './check-shards.js';
import { checkShardRows } from './check-shard-rows.js';
import { ShardChangedError } from './merge-errors.js';
import { verifyShardBodies } from './verify-shard-bodies.js';

/** Shard URLs merged per transaction at most: big enough to be fast, small enough that an interruption loses little. */
export const DEFAULT_BATCH = 5000;

/**
 * Without a batch size given, each transaction aims at this long, so Ctrl-C (heard between transactions)
 * stops the merge within about a second, whatever a shard's pages weigh.
 */
const BATCH_TARGET_MS = 250;

/** The next batch size: doubled after a quick transaction, halved after a slow one. */
const adapt = (size: number, ms: number) =>
  ms < BATCH_TARGET_MS / 2 ? Math.min(DEFAULT_BATCH, size * 2) : ms > BATCH_TARGET_MS ? Math.max(1, Math.floor(size / 2)) : size;

export type MergeEvent =
  | { type: 'shard-start'; path: string; urls: number; from: number }
  | { type: 'batch'; path: string; urlsDone: number; urls: number; pages: number }
  | { type: 'shard-end'; path: string; pages: number; ms: number }
  | { type: 'shard-skipped'; path: string }
  | { type: 'checking'; path: string; bodies: number; checked: number };

export interface MergeRequest {
  shards: string[];
  output: string;
  owner: LockOwner;
  batchSize?: number;
  /** A pause after each batch: slows a merge down on purpose, so a test can interrupt it part-way. */
  pauseMs?: number;
  /** Asked between batches: true ends the merge there, resumable. */
  stopped?: () => boolean;
  onEvent?: (event: MergeEvent) => void;
  /** Told once, before merging, when the output is an archive no merge has written to. */
  onNotice?: (message: string) => void;
}

export interface MergeResult {
  stopped: boolean;
  shards: number;
}

/** Holds each shard's crawl lock for the merge, so no crawl writes a shard while it is read. */
function lockShards(shards: string[]): ArchiveLock[] {
  const locks: ArchiveLock[] = [];
  for (const shard of shards) {
    const lock = ArchiveLock.tryAcquire(shard);
    if (!lock) {
      for (const taken of locks) taken.release();
      throw ArchiveBusyError.crawl(shard, describeHolder(shard));
    }
    locks.push(lock);
  }
  return locks;
}

const identityOf = (path: string): ShardIdentity => {
  const stat = statSync(path);
  return { size: stat.size, mtimeMs: stat.mtimeMs };
};

const sameFile = (a: ShardIdentity, b: ShardIdentity | undefined): b is ShardIdentity =>
  b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs;

/**
 * Every check, before the output is opened: the shards' files, schemas, roots and options, then their
 * rows, then every body's size and hash (the slow part, with progress). A shard an earlier merge into this
 * output took whole, unchanged since, is not read again. Returns each shard's identity as checked, or
 * undefined when stopped part-way.
 */
async function checkAll(shards: string[], request: MergeRequest): Promise<Map<string, ShardIdentity> | undefined> {
  const output = readOutputState(request.output, shards);
  inspectShards(shards, { path: request.output, ...(output.roots ? { roots: output.roots } : {}) });
  const checked = new Map(shards.map((shard) => [shard, identityOf(shard)]));
  const unmerged = shards.filter((shard) => {
    const progress = output.progress.get(shard);
    return !(progress?.finished && sameFile(checked.get(shard)!, progress));
  });
  for (const shard of unmerged) {
    if (!(await checkShardRows(shard, request.stopped))) return undefined;
  }
  for (const shard of unmerged) {
    const onProgress = (done: number, bodies: number) => request.onEvent?.({ type: 'checking', path: shard, bodies, checked: done });
    const whole = await verifyShardBodies(shard, {
      ...(request.pauseMs ? { pauseMs: request.pauseMs } : {}),
      ...(request.stopped ? { stopped: request.stopped } : {}),
      onProgress,
    });
    if (!whole) return undefined;
  }
  return checked;
}

/**
 * Merges archives into one. Resumable: each batch records the shard's progress in the output in its
 * own transaction, so the same command run again after an interruption goes on where it stopped, and
 * a shard already merged (the same file, unchanged) is skipped.
 */
export async function mergeArchives(request: MergeRequest): Promise<MergeResult> {
  const shards = checkShards(request.shards, request.output);
  const fixed = request.batchSize === undefined ? undefined : Math.max(1, request.batchSize);
  let batch = fixed ?? 500;
  const existed = existsSync(request.output) && statSync(request.output).size > 0;
  const locks = lockShards(shards);
  try {
    const checked = await checkAll(shards, request);
    if (!checked) return { stopped: true, shards: shards.length };
    const output = await MergeOutput.open(request.output, request.owner);
    try {
      if (existed && !output.hasProgress()) request.onNotice?.(`${request.output} is an existing archive: the shards are added to it`);
      const merger = output.merger();
      for (const shard of shards) {
        if (request.stopped?.()) return { stopped: true, shards: shards.length };
        const identity = identityOf(shard);
        // Its lock was held since its checks: a change means a writer that ignores the lock.
        if (!sameFile(identity, checked.get(shard))) throw new ShardChangedError(shard);
        const progress = output.shardProgress(shard);
        const same = sameFile(identity, progress);
        if (same && progress.finished) {
          request.onEvent?.({ type: 'shard-skipped', path: shard });
          continue;
        }
        const started = Date.now();
        merger.attach(shard);
        try {
          const { maxUrlId, urls } = merger.size();
          const from = same ? progress.lastUrlId : 0;
          request.onEvent?.({ type: 'shard-start', path: shard, urls, from });
          merger.begin();
          let pages = 0;
          let urlsDone = 0;
          if (from >= maxUrlId) output.recordShardProgress(shard, { ...identity, lastUrlId: maxUrlId, finished: true });
          for (let lo = from + 1; lo <= maxUrlId;) {
            const hi = Math.min(maxUrlId, lo + batch - 1);
            const began = Date.now();
            const done = merger.mergeBatch(lo, hi, () =>
              output.recordShardProgress(shard, { ...identity, lastUrlId: hi, finished: hi >= maxUrlId }),
            );
            if (fixed === undefined) batch = adapt(batch, Date.now() - began);
            lo = hi + 1;
            pages += done.pages;
            urlsDone += done.urls;
            request.onEvent?.({ type: 'batch', path: shard, urlsDone, urls, pages });
            // Lets Ctrl-C be heard between batches.
            await (request.pauseMs ? sleep(request.pauseMs) : nextTurn());
            if (hi < maxUrlId && request.stopped?.()) return { stopped: true, shards: shards.length };
          }
          request.onEvent?.({ type: 'shard-end', path: shard, pages, ms: Date.now() - started });
        } finally {
          merger.detach();
        }
      }
      return { stopped: false, shards: shards.length };
    } finally {
      output.close();
    }
  } finally {
    for (const lock of locks) lock.release();
  }
}
