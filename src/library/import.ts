import { hostname } from 'node:os';
import type { ImportTally } from '../import/import-tally.js';
import type { LockOwner } from '../storage/public.js';

/** WARC and WACZ files (wget, Heritrix, grab-site, Browsertrix, ReplayWeb.page, crawlite export) read into an archive, as `crawlite import`. */
export interface ImportInput {
  /**
   * WARC files, `.warc` or `.warc.gz`, and WACZ files (their `archive/` WARCs in name order, their page lists for
   * page kinds); read in order, so revisits find their originals in earlier files.
   */
  files: string[];
  /** The archive file, created if missing. */
  db: string;
  /** Largest body imported, after decompression; larger responses are skipped. */
  maxBodyBytes?: number;
  /** Named in the archive while the import writes it; this process by default. */
  owner?: LockOwner;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
  /** Damaged input: the file, the offset of the record (or its gzip member) and what is wrong. */
  onProblem?: (problem: ImportProblem) => void;
  /** A response or revisit not imported, and why. */
  onSkip?: (skip: ImportSkip) => void;
  /** Told after each batch of records is committed. */
  onProgress?: (progress: ImportProgress) => void;
  /** Aborting it stops the import after committing what was read (`stopped` in the report). */
  signal?: AbortSignal;
}

export interface ImportProblem {
  file: string;
  offset: number;
  message: string;
}

export interface ImportSkip extends ImportProblem {
  code: string;
}

/** What the import has read and stored so far, as the command's progress line and report say. */
export type ImportProgress = Omit<ImportTally, 'roots'>;

export interface ImportReport extends ImportProgress {
  /** The import's run in the archive; absent when no file held a WARC record (the archive was then not touched). */
  runId?: number;
}

/** Imports WARC and WACZ files into an archive, new or existing, under the archive's lock like a crawl, as a run of its own. */
export async function importWarcs(input: ImportInput): Promise<ImportReport> {
  const { runImport } = await import('../import/run-import.js');
  const { signal } = input;
  const { roots: _roots, ...report } = await runImport(
    {
      files: input.files,
      dbPath: input.db,
      owner: input.owner ?? { pid: process.pid, host: hostname() },
      ...(input.maxBodyBytes !== undefined ? { maxBodyBytes: input.maxBodyBytes } : {}),
      ...(input.onWait ? { onWait: input.onWait } : {}),
    },
    {
      onProblem: (file, offset, message) => input.onProblem?.({ file, offset, message }),
      onSkip: (file, offset, code, message) => input.onSkip?.({ file, offset, code, message }),
      onProgress: ({ roots: _, ...progress }) => input.onProgress?.(progress),
      stopRequested: () => signal?.aborted === true,
    },
  );
  return report;
}
