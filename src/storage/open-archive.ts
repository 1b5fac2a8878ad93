import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { ArchivePathError, CorruptArchiveError, NewerSchemaError, NotAnArchiveError } from './archive-errors.js';
import { latestSchemaVersion, loadMigrations, migrate } from './migrate.js';

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
  objects: number;
}

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/** Maps SQLite's complaints about a file to errors that say what is wrong with it. */
export function explainOpenError(path: string, error: unknown): never {
  const code = sqliteCode(error);
  if (code === 'SQLITE_NOTADB') throw new NotAnArchiveError(path, 'not a SQLite database', { cause: error });
  if (code.startsWith('SQLITE_CORRUPT')) throw new CorruptArchiveError(path, { cause: error });
  if (code.startsWith('SQLITE_CANTOPEN')) throw new ArchivePathError(path, 'cannot open the file (check the path and permissions)', { cause: error });
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    throw new ArchivePathError(path, 'the file or its directory is not writable', { cause: error });
  }
  throw error;
}

function checkPath(path: string, mode: OpenMode): boolean {
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new ArchivePathError(path, 'is a directory, not an archive file');
    return true;
  }
  if (mode !== 'create') throw new ArchivePathError(path, 'no such archive');
  const dir = dirname(resolve(path));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ArchivePathError(path, `directory ${dir} does not exist`);
  return false;
}

/** Reads the header through a read-only connection, so a file that is refused stays byte-identical. */
function readHeader(path: string, thorough: boolean): Header {
  let db: Db | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const header = {
      applicationId: db.pragma('application_id', { simple: true }) as number,
      userVersion: db.pragma('user_version', { simple: true }) as number,
      objects: (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n,
    };
    if (thorough && header.applicationId === APPLICATION_ID) {
      const check = db.pragma('quick_check(1)', { simple: true });
      if (check !== 'ok') throw new CorruptArchiveError(path);
    }
    return header;
  } catch (error) {
    if (error instanceof CorruptArchiveError) throw error;
    return explainOpenError(path, error);
  } finally {
    db?.close();
  }
}

function checkHeader(path: string, header: Header, known: number): void {
  const empty = header.objects === 0 && header.userVersion === 0 && header.applicationId === 0;
  if (empty) return;
  if (header.applicationId !== APPLICATION_ID) throw new NotAnArchiveError(path, 'a SQLite database made by another program');
  if (header.userVersion > known) throw new NewerSchemaError(path, header.userVersion, known);
}

/**
 * Opens an archive, refusing files that are not crawlite archives before
 * anything is written to them, and brings the schema up to date.
 */
export function openArchive(path: string, mode: OpenMode): Db {
  const migrations = loadMigrations();
  const exists = checkPath(path, mode);
  if (exists) {
    const header = readHeader(path, mode !== 'readonly');
    checkHeader(path, header, latestSchemaVersion(migrations));
    if (mode === 'readonly' && header.applicationId !== APPLICATION_ID) {
      throw new NotAnArchiveError(path, 'an empty file');
    }
  }
  try {
    if (mode === 'readonly') {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      return db;
    }
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    return db;
  } catch (error) {
    return explainOpenError(path, error);
  }
}
