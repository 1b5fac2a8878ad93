import type { Database } from 'better-sqlite3';
import type { LockOwner } from '../archive/archive-lock.js';
import { connectionOf, openCrawlArchive, type CrawlArchive } from '../archive/open-crawl-archive.js';
import { ArchiveMerger } from './merge-archive.js';
import { hasMergeProgress, readShardProgress, writeShardProgress, type ShardProgress } from './merge-progress.js';

/**
 * A merge's output archive, opened under the lock a crawl takes: the merger that writes it and the progress
 * it records per shard. The connection stays here, inside storage.
 */
export class MergeOutput {
  private readonly db: Database;

  private constructor(private readonly archive: CrawlArchive) {
    this.db = connectionOf(archive);
  }

  /** Takes the archive's lock, then opens (or creates), checks and migrates it. */
  static async open(path: string, owner: LockOwner): Promise<MergeOutput> {
    return new MergeOutput(await openCrawlArchive(path, 'create', owner));
  }

  /** Whether any merge has written to this archive. */
  hasProgress(): boolean {
    return hasMergeProgress(this.db);
  }

  /** The progress recorded for a shard (by its absolute path), if any. */
  shardProgress(shardPath: string): ShardProgress | undefined {
    return readShardProgress(this.db, shardPath);
  }

  /** Records a shard's progress: inside a batch's transaction (see ArchiveMerger.mergeBatch), or alone (one statement commits by itself). */
  recordShardProgress(shardPath: string, progress: ShardProgress): void {
    writeShardProgress(this.db, shardPath, progress);
  }

  /** The SQL of the merge, on this archive's connection. */
  merger(): ArchiveMerger {
    return new ArchiveMerger(this.db);
  }

  /** Ends writing and releases the lock. Safe to call twice. */
  close(): void {
    this.archive.close();
  }
}
