import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { realArchivePath, type LockOwner } from './archive-lock.js';

export interface LockHolder extends LockOwner {
  since: string;
}

/*
 * The `lock` row in meta names the crawl that holds the archive's lock, so a
 * refused crawl can say who holds it. It decides nothing: the lock itself is
 * the operating system's (archive-lock.ts), and a row left by a killed crawl,
 * or by an older crawlite, is just out of date.
 */

const READ = "SELECT value FROM meta WHERE key = 'lock'";

export const formatHolder = (holder: LockHolder): string => `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;

export function readHolder(db: Db): LockHolder | undefined {
  const value = db.prepare<[], { value: string }>(READ).get()?.value;
  return value === undefined ? undefined : (JSON.parse(value) as LockHolder);
}

export function recordHolder(db: Db, owner: LockOwner, now: Date = new Date()): void {
  const holder: LockHolder = { pid: owner.pid, host: owner.host, since: now.toISOString() };
  db.prepare("INSERT INTO meta (key, value) VALUES ('lock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    JSON.stringify(holder),
  );
}

export function clearHolder(db: Db): void {
  db.prepare("DELETE FROM meta WHERE key = 'lock'").run();
}

/**
 * Names the crawl holding the lock, read without writing anything. Only a
 * crawl in WAL mode (a -wal file beside the archive) has written its row; a
 * crawl still opening the archive has not, and is just "another crawl".
 */
export function describeHolder(archivePath: string): string | undefined {
  // SQLite names the -wal after the real path, so through a symlink it is beside the target.
  if (!existsSync(archivePath) || !existsSync(`${realArchivePath(archivePath)}-wal`)) return undefined;
  let db: Db | undefined;
  try {
    db = new Database(archivePath, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 100');
    const holder = readHolder(db);
    return holder ? formatHolder(holder) : undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
