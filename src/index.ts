/**
 * crawlite as a library: crawl a site into one SQLite file, resume it, and read it back;
 * or share a crawl among workers through PostgreSQL and merge their shards.
 * The command line is a shell over these same functions.
 */
export { crawl, recrawl, resume, type CrawlEvent, type CrawlHandle, type CrawlInput, type CrawlReport, type RecrawlInput, type ResumeInput } from './library/crawl.js';
export type { SessionOptions } from './library/session-options.js';
export {
  frontierStatus,
  initFrontier,
  type FrontierConnection,
  type FrontierCounts,
  type FrontierState,
  type FrontierStatus,
  type InitFrontierInput,
  type InitFrontierResult,
} from './library/frontier.js';
export { crawlWorker, type WorkerEvent, type WorkerHandle, type WorkerInput, type WorkerNotice, type WorkerReport } from './library/worker.js';
export { merge, type MergeInput, type MergeProgress, type MergeReport } from './library/merge.js';
export type { FetchEventType, OptionChange, RunNotice as CrawlNotice, StateCounts } from './run/run-events.js';
export type { FetchReport } from './pipeline/crawl-item.js';
export type { CrawlOptions } from './pipeline/crawl-options.js';
export type { Reason } from './pipeline/ports.js';
export type { RootState, SearchMode } from './storage/public.js';
export {
  openArchive,
  type ArchivedLink,
  type ArchivedPage,
  type ArchivedUrl,
  type ArchiveReader,
  type ArchiveReport,
  type LinkKind,
  type PageFilter,
  type QueryParams,
  type ReadOnlyQuery,
  type SearchHit,
  type SearchOptions,
  type UrlKind,
  type UrlState,
} from './storage/public.js';
export { CrawliteError } from './crawlite-error.js';
export { InvalidOptionError } from './pipeline/validate-crawl-options.js';
export { InvalidRootError } from './run/resolve-roots.js';
export { NoArchiveFileError } from './run/run-request.js';
export { FrontierExistsError, NoFrontierError, PgSchemaTooNewError, PgUnreachableError } from './pg/pg-errors.js';
export { MergeIntoInputError, ShardSchemaError } from './merge/merge-errors.js';
export {
  ArchiveBusyError,
  ArchivePathError,
  ArchiveWriteError,
  CorruptArchiveError,
  NewerSchemaError,
  NotAnArchiveError,
  NothingToRecrawlError,
  NothingToResumeError,
  NotAShardError,
  NothingToSearchError,
  QueryRefusedError,
  SearchNotIndexedError,
  SearchQueryError,
  ShardArchiveError,
  ShardOfOtherCrawlError,
  UnfinishedCrawlError,
} from './storage/public.js';
