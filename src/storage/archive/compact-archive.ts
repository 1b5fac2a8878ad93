import { closeSync, existsSync, fsyncSync, openSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { COMPACT_TEXT_LEVEL, COMPACT_ZLIB_LEVEL, compressBody } from '../../pipeline/compress-body.js';
import { ArchiveBusyError } from './archive-errors.js';
import { ArchiveLock, realArchivePath, refuseHardLinks } from './archive-lock.js';
import { bodyBytes } from './body-bytes.js';
import { describeHolder } from './lock-holder.js';
import { migrate, loadMigrations } from './migrate.js';
import { checkPath, closeArchive, openArchive } from './open-archive.js';
import { registerSqlarFunctions } from './sqlar-functions.js';
import { convertPageText } from '../writer/index.js';

export interface CompactReport {
  /** Bodies rewritten (compressed, or given back raw with `undo`); the others were already so, or do not pay. */
  bodies: number;
  /** File size before (with its WAL) and after. */
  bytesBefore: number;
  bytesAfter: number;
  /** A temporary file an interrupted run left beside the archive, removed first. */
  leftoverRemoved: boolean;
}

/** Bodies converted per transaction: bounded memory whatever the archive's size. */
const BATCH = 256;

/**
 * Page sizes: SQLite's default for an archive being crawled, and a smaller one for a compact archive. A
 * compressed body or text of 2-4 KB takes a 4 KB leaf page nearly alone; at 2 KB the part past whole pages
 * shares a leaf with others. Measured: 3,000 synthetic pages 15.1 -> 14.4 KB per page, the Python docs
 * 20.1 -> 19.9 MB; 1 KB pages gave no more.
 */
const DEFAULT_PAGE_SIZE = 4096;
const COMPACT_PAGE_SIZE = 2048;

/** The file the new archive is built in, beside the archive (a rename is atomic only within one file system). */
export const compactTempPath = (archivePath: string): string => `${realArchivePath(archivePath)}-compacting`;

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);

function removeIfThere(path: string): boolean {
  if (!existsSync(path)) return false;
  unlinkSync(path);
  return true;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Rewrites each body of the copy: at COMPACT_ZLIB_LEVEL where that pays (the sqlar convention; a body a
 * `--compact` crawl stored at its faster level is packed again when that is smaller), or raw with `undo`.
 */
function convertBodies(db: Db, undo: boolean): number {
  const next = db.prepare<[number, number], { id: number; data: Buffer; size: number }>(
    `SELECT id, data, size FROM body WHERE id > ? ${undo ? 'AND length(data) < size' : ''} ORDER BY id LIMIT ?`,
  );
  const update = db.prepare<[Uint8Array, number]>('UPDATE body SET data = ? WHERE id = ?');
  let converted = 0;
  const batch = db.transaction((rows: Array<{ id: number; data: Buffer; size: number }>) => {
    for (const row of rows) {
      const raw = bodyBytes(row.data, row.size);
      const data = undo ? raw : compressBody(raw, COMPACT_ZLIB_LEVEL);
      if (!undo && data.byteLength >= row.data.byteLength) continue;
      update.run(data, row.id);
      converted += 1;
    }
  });
  for (let last = 0; ;) {
    const rows = next.all(last, BATCH);
    if (rows.length === 0) break;
    batch(rows);
    last = rows[rows.length - 1]!.id;
  }
  return converted;
}

/**
 * Merges each search index's segments into one (FTS5's 'optimize'): the same rows, matches and ranks, fewer
 * bytes (0.17 MB of the Python docs' 3.87 MB index). An archive from before the indexes has none to merge.
 */
function optimizeSearchIndexes(db: Db): void {
  for (const table of ['page_text_fts', 'page_text_trigram', 'page_text_cjk_words']) {
    const present = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table);
    if (present) db.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
  }
}

/** Marks the copy compact or not, in `meta` and in the stored options, so a resume or a re-crawl writes as it now stores. */
function markCompact(db: Db, compact: boolean): void {
  if (compact) db.prepare("INSERT INTO meta (key, value) VALUES ('compact', 'true') ON CONFLICT (key) DO UPDATE SET value = 'true'").run();
  else db.prepare("DELETE FROM meta WHERE key = 'compact'").run();
  db.prepare(`UPDATE meta SET value = json_set(value, '$.compact', json(?)) WHERE key = 'options' AND json_valid(value)`).run(
    String(compact),
  );
}

/**
 * Turns an archive compact (bodies zlib-compressed), or gives its bodies back raw (`undo`), without ever
 * leaving a damaged file: under the archive's lock, a copy is made beside it (VACUUM INTO), converted,
 * vacuumed, synced, and renamed over the archive; the directory is synced after. Killed at any moment, the
 * archive's path names the old file or the new one, and the next run removes a copy left half-made.
 */
export function compactArchive(path: string, { undo = false } = {}): CompactReport {
  checkPath(path, 'existing');
  refuseHardLinks(path);
  const lock = ArchiveLock.tryAcquire(path);
  if (!lock) throw ArchiveBusyError.crawl(path, describeHolder(path));
  const real = realArchivePath(path);
  const temp = compactTempPath(path);
  try {
    // Only this run, holding the lock, uses the copy's name: one found is an interrupted run's.
    const leftoverRemoved = removeIfThere(temp);
    removeIfThere(`${temp}-journal`);
    const bytesBefore = sizeOf(real) + sizeOf(`${real}-wal`);
    // A crawl that crashed left the archive in WAL mode: back to one file first (SQLite's own checkpoint, safe to
    // kill), so no -wal file stays beside the path to be read with the new file. Otherwise it is only read.
    if (existsSync(`${real}-wal`)) closeArchive(openArchive(path, 'existing'));
    const source = openArchive(path, 'readonly');
    try {
      source.prepare('VACUUM INTO ?').run(temp);
    } finally {
      source.close();
    }
    const copy = new Database(temp);
    // Offline, text takes a higher level than a crawl's.
    registerSqlarFunctions(copy, undo ? undefined : COMPACT_TEXT_LEVEL);
    let bodies: number;
    try {
      // The copy has this version's schema, whatever the archive's was.
      migrate(copy, loadMigrations());
      // The copy is nobody's archive until the rename: a crash only loses it, so it needs no journal.
      copy.pragma('journal_mode = OFF');
      copy.pragma('synchronous = OFF');
      bodies = convertBodies(copy, undo);
      markCompact(copy, !undo);
      // Page text too (the search indexes read it unchanged, so they are not rebuilt).
      copy.transaction(() => convertPageText(copy, undo ? 'plain' : 'compact'))();
      if (!undo) optimizeSearchIndexes(copy);
      copy.pragma(`page_size = ${undo ? DEFAULT_PAGE_SIZE : COMPACT_PAGE_SIZE}`);
      copy.exec('VACUUM');
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    fsyncPath(temp);
    // A reader kept the old file in WAL mode: its -wal would be read as part of the new file.
    if (existsSync(`${real}-wal`)) {
      throw new ArchiveBusyError(path, 'a reader (query, serve or another program) holds it open; close it and run compact again');
    }
    renameSync(temp, real);
    fsyncPath(dirname(real));
    return { bodies, bytesBefore, bytesAfter: sizeOf(real), leftoverRemoved };
  } catch (error) {
    try {
      removeIfThere(temp);
    } catch {
      // Removed by the next run.
    }
    throw error;
  } finally {
    lock.release();
  }
}
