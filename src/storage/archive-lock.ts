import type { Database } from 'better-sqlite3';
import { ArchiveBusyError } from './archive-errors.js';

export interface LockOwner {
  pid: number;
  host: string;
  /** Whether a process with this pid still runs on this host. */
  isAlive(pid: number): boolean;
}

interface LockRow {
  pid: number;
  host: string;
  since: string;
}

/**
 * One crawler per archive: a lock row naming the owning process. A row left
 * by a killed process is stale (its pid is gone) and is taken over, so a
 * kill -9 never blocks a resume. Readers (query, stats) never take it.
 */
export function acquireArchiveLock(db: Database, path: string, owner: LockOwner): () => void {
  const read = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'lock'");
  const write = db.prepare<[string]>("INSERT INTO meta (key, value) VALUES ('lock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  db.transaction(() => {
    const row = read.get();
    if (row) {
      const held = JSON.parse(row.value) as LockRow;
      const mine = held.pid === owner.pid && held.host === owner.host;
      const alive = held.host !== owner.host || owner.isAlive(held.pid);
      if (!mine && alive) throw new ArchiveBusyError(path, `pid ${held.pid} on ${held.host}, since ${held.since}`);
    }
    write.run(JSON.stringify({ pid: owner.pid, host: owner.host, since: new Date().toISOString() } satisfies LockRow));
  }).immediate();

  return () => {
    if (!db.open) return;
    const row = read.get();
    if (row && (JSON.parse(row.value) as LockRow).pid === owner.pid) db.prepare("DELETE FROM meta WHERE key = 'lock'").run();
  };
}
