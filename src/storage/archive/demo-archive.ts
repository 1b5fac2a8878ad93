import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { APPLICATION_ID } from './open-archive.js';

/** Deletes an archive only if the demo made it (its meta says so); returns whether it did. */
export function removeDemoArchive(path: string): boolean {
  let isDemo = false;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      isDemo =
        db.pragma('application_id', { simple: true }) === APPLICATION_ID &&
        db.prepare("SELECT value FROM meta WHERE key = 'demo'").get() !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
  if (!isDemo) return false;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  return true;
}
