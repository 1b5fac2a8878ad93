import { compactArchive, type CompactReport } from '../storage/public.js';

export type { CompactReport };

/** What `crawlite compact` does: an archive's bodies compressed (the sqlar convention), or given back raw with `undo`. */
export interface CompactInput {
  /** An existing archive; never created. */
  db: string;
  /** Give the bodies back raw, and stop compressing new ones. */
  undo?: boolean;
}

/**
 * Turns an archive compact (or back, with `undo`) under the lock a crawl takes; crash-safe: the file is
 * replaced whole by a converted copy, never changed in place. Refused with ArchiveBusyError while a crawl
 * writes to it.
 */
export function compact(input: CompactInput): CompactReport & { ms: number } {
  const started = Date.now();
  const report = compactArchive(input.db, { undo: input.undo === true });
  return { ...report, ms: Date.now() - started };
}
