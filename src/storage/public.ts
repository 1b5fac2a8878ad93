// The storage room's door for the package's public API: what a library user reads and catches, declared
// without the SQLite driver's types (a devDependency, absent from a user's install). The room doors
// (archive/, reader/, ...) name what the rest of crawlite uses; the connections stay inside storage.
export type { LinkKind, UrlKind, UrlState } from '../pipeline/ports.js';
export {
  ArchiveBusyError,
  ArchivePathError,
  ArchiveWriteError,
  CorruptArchiveError,
  NewerSchemaError,
  NotAShardError,
  NotAnArchiveError,
  NothingToRecrawlError,
  NothingToResumeError,
  NothingToSearchError,
  QueryRefusedError,
  SearchNotIndexedError,
  SearchQueryError,
  ShardArchiveError,
  ShardOfOtherCrawlError,
  UnfinishedCrawlError,
} from './archive/archive-errors.js';
export type { LockOwner } from './archive/archive-lock.js';
export { compactArchive, type CompactReport } from './archive/compact-archive.js';
export { openArchive, type ArchiveReader } from './reader/archive-reader.js';
export type { StoredMarkdown } from './reader/reader-types.js';
export type { ArchivedLink, ArchivedPage, ArchivedUrl, PageFilter } from './reader/archive-views.js';
export type {
  ArchiveReport,
  ChangeKind,
  CrawlChange,
  QaRow,
  QueryParams,
  ReadOnlyQuery,
  RootState,
  SearchHit,
  SearchMode,
  SearchOptions,
} from './reader/reader-types.js';
