import type { LockOwner } from '../storage/public.js';

/** A pass over the pages of an existing archive (reindex, markdown), in batches, under the lock a crawl takes. */
export interface ArchivePassInput {
  /** An existing archive, crawled or imported; never created. */
  db: string;
  /** Named in the archive while the pass writes it; this process by default. */
  owner?: LockOwner;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
  /** Told after each batch of pages commits. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Aborting it ends the run between two batches; what is committed stays, and a rerun goes on. */
  signal?: AbortSignal;
}
