import { readlinkSync, realpathSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { ArchivePathError } from './archive-errors.js';
import { requireSqliteDriver } from './sqlite-driver.js';

/** Who crawls, kept in the archive only to name the holder when another crawl is refused. */
export interface LockOwner {
  pid: number;
  host: string;
}

/** Hops of symbolic links followed before giving up (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * The file a path names, spelled one way: symbolic links and `.`/`..` resolved,
 * for a file not created yet too (its directory resolved, and a dangling link
 * followed to where SQLite would create the file).
 */
export function realArchivePath(archivePath: string): string {
  try {
    // .native: libc's realpath, which takes `..` as the kernel does (Node's own one drops it lexically first).
    return realpathSync.native(archivePath);
  } catch {
    // Missing: its links followed and its directory resolved by hand, without resolve() (lexical too).
  }
  let target = archivePath;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop += 1) {
    let link: string;
    try {
      link = readlinkSync(target);
    } catch {
      break;
    }
    target = isAbsolute(link) ? link : `${dirname(target)}${sep}${link}`;
  }
  try {
    return join(realpathSync.native(dirname(target)), basename(target));
  } catch {
    return resolve(target);
  }
}

/** Named after the archive's real path, so every spelling of it (a symlink, `./a/../a.sqlite`) meets the same lock. */
export const lockPathOf = (archivePath: string): string => `${realArchivePath(archivePath)}-lock`;

/**
 * Refuses an archive with more than one name in the file system (hard links):
 * a lock beside one name does not guard the others, and SQLite keeps its
 * journal and WAL under the name a file was opened by, so a crash under one
 * name and a resume under another would corrupt it (SQLite calls a link count
 * other than 1 undefined behaviour).
 */
export function refuseHardLinks(archivePath: string): void {
  let links: number;
  try {
    links = statSync(archivePath).nlink;
  } catch {
    return;
  }
  if (links > 1) {
    throw new ArchivePathError(
      archivePath,
      `has ${links} names (hard links): a crawl's lock and SQLite's journal go by the name, so a crawl under another name at once, or after a crash, would corrupt it; keep one name (remove the other links) or crawl a copy (cp)`,
    );
  }
}

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
 * lock on an empty side file `<archive>-lock` beside the archive's real path
 * (whatever path it was given by), held by an open descriptor for
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
    requireSqliteDriver();
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
        throw new ArchivePathError(
          archivePath,
          `cannot use the lock file ${lockPath}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
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
