import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ArchiveBusyError } from './archive-errors.js';
import { ArchiveLock, lockPathOf, refuseHardLinks } from './archive-lock.js';
import { clearHolder, describeHolder, readHolder, type LockHolder } from './lock-holder.js';
import { checkArchiveFile, explainOpenError } from './open-archive.js';

export interface UnlockResult {
  /** The holder row that named a crawl no longer running, now removed. */
  staleHolder?: LockHolder;
  /** Whether a lock file left by a killed crawl was removed. */
  removedLockFile: boolean;
}

/**
 * Clears what a crawl that is gone left behind: its holder row (which an
 * older crawlite would still obey) and its lock file. Refuses while a live
 * crawl holds the lock: the operating system's lock cannot be stale.
 */
export function unlockArchive(path: string): UnlockResult {
  const blank = checkArchiveFile(path);
  refuseHardLinks(path);
  const hadLockFile = existsSync(lockPathOf(path));
  const lock = ArchiveLock.tryAcquire(path);
  if (!lock)
    throw new ArchiveBusyError(
      path,
      `a running crawl${describe(describeHolder(path))} holds its lock; stop that crawl first (unlock clears only what a crawl that is gone left behind)`,
    );
  try {
    let staleHolder: LockHolder | undefined;
    if (!blank) {
      let db: Database.Database | undefined;
      try {
        db = new Database(path, { fileMustExist: true });
        db.pragma('busy_timeout = 5000');
        staleHolder = readHolder(db);
        if (staleHolder) clearHolder(db);
      } catch (error) {
        explainOpenError(path, error);
      } finally {
        db?.close();
      }
    }
    return staleHolder ? { staleHolder, removedLockFile: hadLockFile } : { removedLockFile: hadLockFile };
  } finally {
    lock.release();
  }
}

const describe = (holder: string | undefined) => (holder ? ` (${holder})` : '');
