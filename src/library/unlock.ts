import { formatHolder, unlockArchive } from '../storage/archive/index.js';

export interface UnlockReport {
  /** Whether there was a lock to clear. */
  unlocked: boolean;
  /** Who held it, as the archive named them (`pid 123 on host, since ...`), when it did. */
  staleHolder?: string;
}

/**
 * Clears the lock left by a crawl that is gone, as `crawlite unlock`; a lock a live crawl holds is refused
 * with ArchiveBusyError.
 */
export function unlock(db: string): UnlockReport {
  const result = unlockArchive(db);
  if (!result.staleHolder && !result.removedLockFile) return { unlocked: false };
  return { unlocked: true, ...(result.staleHolder ? { staleHolder: formatHolder(result.staleHolder) } : {}) };
}
