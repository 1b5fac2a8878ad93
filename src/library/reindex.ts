import { hostname } from 'node:os';
import type { LockOwner } from '../storage/public.js';

/** The search index built for pages stored without text, or with text an older crawlite extracted. */
export interface ReindexInput {
  /** An existing archive, crawled or imported; never created. */
  db: string;
  /** Named in the archive while the reindex writes it; this process by default. */
  owner?: LockOwner;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
  /** Told after each batch of pages commits. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Aborting it ends the run between two batches; what is committed stays, and a rerun goes on. */
  signal?: AbortSignal;
}

export interface ReindexReport {
  /** Pages given their text by this run. */
  indexed: number;
  /** HTML pages that had no text, or text of an older extraction, when the run began. */
  total: number;
  /** Ended by the signal before every page was indexed. */
  stopped: boolean;
  /** From the archive opened to the last batch committed. */
  ms: number;
}

/** Indexes the text of every HTML page that has none (or an older extraction's), under the lock a crawl takes. */
export async function reindex(input: ReindexInput): Promise<ReindexReport> {
  const [{ checkArchiveFile, NotAnArchiveError }, { LockedArchive }, { extractPageText, TEXT_EXTRACTION_VERSION }] = await Promise.all([
    import('../storage/archive/index.js'),
    import('../storage/crawl-state/index.js'),
    import('../pipeline/parse/parse-response.js'),
  ]);
  // Never creates an archive: an existing one, crawled or imported, under the lock a crawl takes.
  if (checkArchiveFile(input.db)) throw new NotAnArchiveError(input.db, 'an empty file');
  const archive = await LockedArchive.open(
    input.db,
    'create',
    input.owner ?? { pid: process.pid, host: hostname() },
    input.onWait ? { onWait: input.onWait } : {},
  );
  const { signal, onProgress } = input;
  const started = Date.now();
  try {
    const result = await archive.reindexText({
      extract: extractPageText,
      version: TEXT_EXTRACTION_VERSION,
      stopped: () => signal?.aborted === true,
      ...(onProgress ? { onProgress: (done: number, total: number) => onProgress({ done, total }) } : {}),
    });
    return { ...result, ms: Date.now() - started };
  } finally {
    archive.close();
  }
}
