import type { Database as Db } from 'better-sqlite3';
import { ArchiveBusyError } from './archive-errors.js';
import type { ShardOf } from './check-shard.js';
import { ArchiveLock, refuseHardLinks, type LockOwner } from './archive-lock.js';
import { clearHolder, describeHolder, recordHolder } from './lock-holder.js';
import {
  checkPath,
  closeArchive,
  enterWal,
  explainOpenError,
  openUnwritten,
  prepareForWriting,
  type UnwrittenArchive,
} from './open-archive.js';
import { WalCheckpointer } from './wal-checkpointer.js';

/**
 * An archive a crawl may write to, with its lock held until `close`. Its connection stays inside storage
 * (see connectionOf): other rooms write through the storage objects built over it.
 */
export interface CrawlArchive {
  readonly path: string;
  /** False once closed (or once the connection failed and was closed). */
  readonly isOpen: boolean;
  /** Ends writing: clears the holder row, leaves WAL mode, then releases the lock. Safe to call twice. */
  close(): void;
}

const connections = new WeakMap<CrawlArchive, Db>();

/** The archive's connection, for the storage objects that write through it; no door of storage names this. */
export function connectionOf(archive: CrawlArchive): Db {
  const db = connections.get(archive);
  if (!db) throw new Error('not an archive opened by openCrawlArchive');
  return db;
}

export interface OpenCrawlOptions {
  /** Told once when the crawl waits for a reader to close the archive. */
  onWait?: (message: string) => void;
  /** How long to wait for readers before giving up. */
  readerWaitMs?: number;
  /** Refuse a worker's shard (a crawl of its own would fetch what other workers hold). */
  refuseShard?: boolean;
  /** For a worker: refuse an archive that is not a shard of this crawl (one with a crawl of its own, another frontier's shard). */
  shardOf?: ShardOf;
}

const READER_WAIT_MS = 10 * 60_000;
const READER_POLL_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isBusy = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('SQLITE_BUSY');

/**
 * Switches a finished archive (rollback journal) back to WAL. A reader that
 * opened it meanwhile (query, stats, a SQLite client) holds it: with the crawl
 * lock taken, no crawl can be the cause, so wait for the reader, polling
 * without blocking so that Ctrl-C still ends the wait.
 */
async function enterWalWhenReadersLeave(db: Db, path: string, options: OpenCrawlOptions): Promise<void> {
  const limitMs = options.readerWaitMs ?? READER_WAIT_MS;
  const started = Date.now();
  db.pragma('busy_timeout = 0');
  for (let told = false; ;) {
    try {
      enterWal(db);
      break;
    } catch (error) {
      if (!isBusy(error)) throw error;
      const waited = Date.now() - started;
      if (waited >= limitMs) {
        throw new ArchiveBusyError(
          path,
          `a reader (query, stats or another program) kept it open for ${Math.round(waited / 1000)} s; close it and run again`,
        );
      }
      if (!told) options.onWait?.(`waiting for a reader (query, stats or another program) to close ${path}...`);
      told = true;
      await sleep(Math.min(READER_POLL_MS, limitMs - waited));
    }
  }
  db.pragma('busy_timeout = 5000');
}

/**
 * Takes the archive's lock before anything is written (a crawl creating a
 * new archive included, so two crawls started at once never both create it:
 * the second is told "busy"), then opens, checks and migrates the archive.
 */
export async function openCrawlArchive(
  path: string,
  mode: 'create' | 'existing',
  owner: LockOwner,
  options: OpenCrawlOptions = {},
): Promise<CrawlArchive> {
  checkPath(path, mode);
  refuseHardLinks(path);
  const lock = ArchiveLock.tryAcquire(path);
  if (!lock) throw ArchiveBusyError.crawl(path, describeHolder(path));
  let archive: UnwrittenArchive | undefined;
  try {
    archive = openUnwritten(path, mode, { refuseShard: options.refuseShard, shardOf: options.shardOf });
    await enterWalWhenReadersLeave(archive.db, path, options);
    prepareForWriting(archive);
    recordHolder(archive.db, owner);
  } catch (error) {
    archive?.db.close();
    lock.release();
    return explainOpenError(path, error);
  }
  const { db } = archive;
  const checkpointer = WalCheckpointer.start(db, path);
  let stopped = false;
  const opened: CrawlArchive = {
    path,
    get isOpen() {
      return db.open;
    },
    close() {
      if (!stopped) checkpointer.stop();
      stopped = true;
      try {
        if (db.open) clearHolder(db);
      } catch {
        // The write that ended the crawl may fail again; the row then names a crawl that is gone, which blocks nothing.
      }
      try {
        closeArchive(db);
      } finally {
        lock.release();
      }
    },
  };
  connections.set(opened, db);
  return opened;
}
