import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { ArchivePathError } from './archive-errors.js';

/** Who crawls, kept in the archive only to name the holder when another crawl is refused. */
export interface LockOwner {
  pid: number;
  host: string;
}

export const lockPathOf = (archivePath: string): string => `${archivePath}-lock`;

/** How often the lock is retried when the file it was taken on was removed meanwhile. */
const ATTEMPTS = 5;

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/** The file a path names now (device and inode), or undefined if there is none. */
function identity(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function createLockFile(lockPath: string, archivePath: string): void {
  try {
    // Created before SQLite opens it, so the file locked can be compared with the one the path names.
    writeFileSync(lockPath, '', { flag: 'a' });
  } catch (error) {
    throw new ArchivePathError(archivePath, `its directory is not writable (cannot create the lock file ${lockPath})`, { cause: error });
  }
}

/**
 * One crawler per archive, enforced by the operating system: SQLite's POSIX
 * lock on an empty side file `<archive>-lock`, held by an open descriptor for
 * the whole crawl. A process that dies (kill -9, a crash, a zombie its parent
 * has not reaped) has had its descriptors closed, so the lock is free at once;
 * no pid is ever trusted. Nothing is written to the lock file, and a clean
 * release removes it, so a finished archive is one file again.
 */
export class ArchiveLock {
  private constructor(
    private readonly lockPath: string,
    private readonly db: Db,
  ) {}

  /** Takes the lock, or returns undefined when a live process holds it. */
  static tryAcquire(archivePath: string): ArchiveLock | undefined {
    const lockPath = lockPathOf(archivePath);
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      if (identity(lockPath) === undefined) createLockFile(lockPath, archivePath);
      const before = identity(lockPath);
      let db: Db | undefined;
      try {
        db = new Database(lockPath);
        db.pragma('busy_timeout = 0');
        // A memory journal: nothing is written, so no -journal file appears beside the lock.
        db.pragma('journal_mode = MEMORY');
        // RESERVED: no one else can take it; the file is never read for anything.
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        db?.close();
        if (sqliteCode(error).startsWith('SQLITE_BUSY')) return undefined;
        throw new ArchivePathError(archivePath, `cannot use the lock file ${lockPath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      // A holder removes the file while it still holds it; a lock won on a removed file guards nothing: try again.
      if (before !== undefined && identity(lockPath) === before) return new ArchiveLock(lockPath, db);
      db.close();
    }
    return undefined;
  }

  /** Removes the lock file, then lets go of the lock (in that order, so no one locks a file about to vanish). */
  release(): void {
    if (!this.db.open) return;
    try {
      unlinkSync(this.lockPath);
    } catch {
      // Already gone or not removable: an unlocked leftover file blocks no one.
    }
    this.db.close();
  }
}
