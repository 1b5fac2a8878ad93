// The archive room's door: what the rest of crawlite uses of it (opening, locking and migrating archive files,
// their errors). The connections stay inside storage: other rooms read and write through the storage objects
// (an archive opened for writing is crawl-state's LockedArchive, or merge's MergeOutput).
export {
  ArchiveBusyError,
  NotAnArchiveError,
  NothingToRecrawlError,
  NothingToResumeError,
  UnfinishedCrawlError,
  asWriteError,
} from './archive-errors.js';
export { ArchiveLock, type LockOwner } from './archive-lock.js';
export { removeDemoArchive } from './demo-archive.js';
export { describeHolder, formatHolder } from './lock-holder.js';
export { latestSchemaVersion, loadMigrations } from './migrate.js';
export { checkArchiveFile } from './open-archive.js';
export type { ShardDefinition } from './shard-file.js';
export { unlockArchive } from './unlock-archive.js';
