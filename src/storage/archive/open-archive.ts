import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { CrawliteError } from '../../crawlite-error.js';
import {
  ArchiveBusyError,
  ArchivePathError,
  CorruptArchiveError,
  NewerSchemaError,
  NotAnArchiveError,
  NothingToResumeError,
  ShardArchiveError,
} from './archive-errors.js';
import { checkShardOf, type ShardOf } from './check-shard.js';
import { latestSchemaVersion, loadMigrations, migrate, type Migration } from './migrate.js';
import { WRITER_AUTOCHECKPOINT_PAGES } from './wal-checkpointer.js';
import { requireSqliteDriver } from './sqlite-driver.js';
import { registerSqlarFunctions } from './sqlar-functions.js';

/** 'crwl': marks a SQLite file as a crawlite archive (PRAGMA application_id). */
export const APPLICATION_ID = 0x6372776c;

export type OpenMode =
  /** Create the file if it is missing; migrate it; for crawling. */
  | 'create'
  /** The file must exist; migrate it; for resuming. */
  | 'existing'
  /** The file must exist; nothing is written; for query and stats. */
  | 'readonly';

interface Header {
  applicationId: number;
  userVersion: number;
  /** A new file, or a SQLite file in which nothing was ever created. */
  blank: boolean;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/** Maps SQLite's complaints about a file to errors that say what is wrong with it. */
export function explainOpenError(path: string, error: unknown): never {
  if (error instanceof CrawliteError) throw error;
  const code = sqliteCode(error);
  if (code === 'SQLITE_NOTADB') throw new NotAnArchiveError(path, 'not a SQLite database', { cause: error });
  if (code.startsWith('SQLITE_CORRUPT')) throw new CorruptArchiveError(path, { cause: error });
  if (code.startsWith('SQLITE_CANTOPEN'))
    throw new ArchivePathError(path, 'cannot open the file (check the path and permissions)', { cause: error });
  if (code.startsWith('SQLITE_BUSY'))
    throw new ArchiveBusyError(path, 'another program holds a lock on it (a SQLite client writing?); try again when it is done');
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    throw new ArchivePathError(path, 'the file or its directory is not writable', { cause: error });
  }
  throw error;
}

/** Whether the archive exists; refuses a directory, a missing file to resume, a missing directory to create in. */
export function checkPath(path: string, mode: OpenMode): boolean {
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new ArchivePathError(path, 'is a directory, not an archive file');
    return true;
  }
  if (mode !== 'create') throw new ArchivePathError(path, 'no such archive');
  const dir = dirname(resolve(path));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ArchivePathError(path, `directory ${dir} does not exist`);
  return false;
}

/**
 * Reads the identity of a file without writing anything, not even SQLite's
 * -wal/-shm side files, so a file that is refused stays exactly as it was.
 */
function readHeader(path: string): Header {
  // With a -wal file (a crawl running, or killed) the newest header may be in the WAL: ask SQLite.
  if (existsSync(`${path}-wal`)) return readHeaderThroughSqlite(path);
  const bytes = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let length: number;
  try {
    length = readSync(fd, bytes, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (length === 0) return { applicationId: 0, userVersion: 0, blank: true };
  if (length < 100 || !bytes.subarray(0, 16).equals(SQLITE_MAGIC)) throw new NotAnArchiveError(path, 'not a SQLite database');
  // Offsets from the SQLite file format: schema cookie 40, user_version 60, application_id 68.
  const applicationId = bytes.readUInt32BE(68);
  const userVersion = bytes.readUInt32BE(60);
  return { applicationId, userVersion, blank: applicationId === 0 && userVersion === 0 && bytes.readUInt32BE(40) === 0 };
}

function readHeaderThroughSqlite(path: string): Header {
  let db: Db | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const userVersion = db.pragma('user_version', { simple: true }) as number;
    const objects = (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n;
    return { applicationId, userVersion, blank: applicationId === 0 && userVersion === 0 && objects === 0 };
  } catch (error) {
    return explainOpenError(path, error);
  } finally {
    db?.close();
  }
}

function checkHeader(path: string, header: Header, known: number): void {
  if (header.blank) return;
  if (header.applicationId !== APPLICATION_ID) throw new NotAnArchiveError(path, 'a SQLite database made by another program');
  if (header.userVersion > known) throw new NewerSchemaError(path, header.userVersion, known);
}

/** Checks without writing that an existing file is a crawlite archive this version can open; returns whether it is blank. */
export function checkArchiveFile(path: string): boolean {
  checkPath(path, 'existing');
  const header = readHeader(path);
  checkHeader(path, header, latestSchemaVersion(loadMigrations()));
  return header.blank;
}

/**
 * Archives up to this size are read whole by quick_check before anything is
 * written (well under a second). A larger one is only checked for truncation,
 * so a resume of a million-URL archive starts at once; corruption inside it
 * is met when SQLite reads the damaged page, which stops the crawl with one
 * line, as a failing disk would.
 */
const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

function checkIntegrity(db: Db, path: string): void {
  if (statSync(path).size <= FULL_CHECK_MAX_BYTES) {
    const check = db.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw new CorruptArchiveError(path);
    return;
  }
  // A file shorter than the pages SQLite counts in it was cut off.
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  if (statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0) < pages * pageSize) {
    throw new CorruptArchiveError(path);
  }
}

/** Whether the file, not yet migrated (it may have no meta table), holds `key` in meta. */
function hasMeta(db: Db, key: string): boolean {
  const meta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get();
  return meta !== undefined && db.prepare('SELECT 1 FROM meta WHERE key = ?').get(key) !== undefined;
}

/** An archive opened for writing and checked, to which nothing has been written yet. */
export interface UnwrittenArchive {
  db: Db;
  migrations: Migration[];
}

/**
 * Opens a file to write to and runs every check that only reads: the header
 * (a crawlite archive, not from a newer version), integrity, and for resume
 * that there is a crawl to resume (and, if asked, that it is no worker's
 * shard, or that it is one of the worker's crawl). A refused file keeps every byte, and the connection closes without
 * leaving -wal or -shm files it made.
 */
export function openUnwritten(
  path: string,
  mode: 'create' | 'existing',
  checks: { refuseShard?: boolean; shardOf?: ShardOf } = {},
): UnwrittenArchive {
  requireSqliteDriver();
  const migrations = loadMigrations();
  const exists = checkPath(path, mode);
  if (exists) {
    const header = readHeader(path);
    checkHeader(path, header, latestSchemaVersion(migrations));
    if (mode === 'existing' && header.blank) throw new NothingToResumeError(path);
  }
  let db: Db | undefined;
  try {
    db = new Database(path);
    db.pragma('busy_timeout = 5000');
    registerSqlarFunctions(db);
    if (exists) checkIntegrity(db, path);
    if (mode === 'existing' && !hasMeta(db, 'roots')) throw new NothingToResumeError(path);
    // A worker marks its shard so: its crawl lives in the shared frontier.
    if (exists && checks.refuseShard && hasMeta(db, 'shardOf')) throw new ShardArchiveError(path);
    if (exists && checks.shardOf) checkShardOf(db, path, checks.shardOf);
    return { db, migrations };
  } catch (error) {
    db?.close();
    return explainOpenError(path, error);
  }
}

/** Switches to WAL: needs the file to itself, so it is busy while a reader has an older-style (rollback) read open. */
export function enterWal(db: Db): void {
  db.pragma('journal_mode = WAL');
}

/** What every connection that writes an archive sets: WAL's cheap commits, and the schema's foreign keys. */
function writingPragmas(db: Db): void {
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
}

/** The first writes: pragmas, migrations, the crawlite mark. */
export function prepareForWriting({ db, migrations }: UnwrittenArchive): void {
  writingPragmas(db);
  migrate(db, migrations);
  db.pragma(`application_id = ${APPLICATION_ID}`);
}

/**
 * Opens an archive, refusing files that are not crawlite archives before
 * anything is written to them, and brings the schema up to date. Crawls go
 * through openCrawlArchive, which also takes the archive's lock.
 */
export function openArchive(path: string, mode: OpenMode): Db {
  requireSqliteDriver();
  if (mode === 'readonly') return openReadOnly(path);
  const archive = openUnwritten(path, mode);
  try {
    enterWal(archive.db);
    prepareForWriting(archive);
    return archive.db;
  } catch (error) {
    archive.db.close();
    return explainOpenError(path, error);
  }
}

function openReadOnly(path: string): Db {
  checkPath(path, 'readonly');
  const header = readHeader(path);
  checkHeader(path, header, latestSchemaVersion(loadMigrations()));
  if (header.blank) throw new NotAnArchiveError(path, 'an empty file');
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    registerSqlarFunctions(db);
    return db;
  } catch (error) {
    return explainOpenError(path, error);
  }
}

/**
 * A second connection for writing to an archive a crawl holds open (and locked) already, in WAL
 * mode and migrated: the crawl-state thread's. Same pragmas as the first; it checkpoints only as a
 * safety net, the checkpointer's thread does the rest.
 */
export function openWriterConnection(path: string): Db {
  const db = new Database(path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  registerSqlarFunctions(db);
  writingPragmas(db);
  db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
  return db;
}

/**
 * Closes an archive after writing. Leaving WAL mode folds the -wal file back
 * in, so a finished archive is one self-contained file that readers open
 * without creating side files. If a reader holds the file, it stays in WAL.
 */
export function closeArchive(db: Db): void {
  if (!db.open) return;
  if (!db.readonly) {
    try {
      db.pragma('busy_timeout = 0');
      db.pragma('journal_mode = DELETE');
    } catch {
      // Busy: a reader is open. WAL mode is just as safe.
    }
  }
  db.close();
}
