/**
 * The library's entry: every capability of crawlite, with typed inputs and results, progress told through
 * callbacks or an Observable of events, and interruption through stop() or an AbortSignal. The command
 * line is a shell over these functions; the package door (src/index.ts) exports this module.
 * Each capability loads what it needs when called, from its own module (a command line may import one
 * of them alone, to load only that).
 */
export {
  crawl,
  recrawl,
  resume,
  retry,
  type CrawlEvent,
  type CrawlHandle,
  type CrawlInput,
  type CrawlReport,
  type RecrawlInput,
  type ResumeInput,
} from './crawl.js';
export { SESSION_KEYS, type NameSessionOption, type SessionKey, type SessionOptions } from './session-options.js';
export {
  prepareRun,
  startRun,
  type OptionSpelling,
  type PreparedRun,
  type RunHandle,
  type RunInput,
  type RunKind,
  type RunOutcome,
} from './start-run.js';
export type { SessionNote } from '../run/session.js';
export {
  frontierStatus,
  frontierTarget,
  initFrontier,
  type FrontierConnection,
  type FrontierCounts,
  type FrontierState,
  type FrontierStatus,
  type InitFrontierInput,
  type InitFrontierResult,
} from './frontier.js';
export { crawlWorker, type WorkerEvent, type WorkerHandle, type WorkerInput, type WorkerNotice, type WorkerReport } from './worker.js';
export {
  merge,
  mergeShards,
  type MergeCheck,
  type MergeInput,
  type MergeOutcome,
  type MergeProgress,
  type MergeReport,
  type MergeShardsInput,
} from './merge.js';
export { exportArchive, type ExportInput, type ExportProgress, type ExportReport } from './export.js';
export { importWarcs, type ImportInput, type ImportProblem, type ImportProgress, type ImportReport, type ImportSkip } from './import.js';
export {
  CHANGE_KINDS,
  diffCrawls,
  diffPage,
  type ChangeKind,
  type CrawlChange,
  type CrawlDiff,
  type DiffInput,
  type PageDiff,
  type PageDiffInput,
} from './diff.js';
export { reindex, type ReindexInput, type ReindexReport } from './reindex.js';
export { markdown, type MarkdownInput, type MarkdownReport } from './markdown.js';
export { exportMarkdown, type MarkdownExportOptions, type MarkdownExportSummary } from './export-markdown.js';
export { qa, QA_DEFAULTS, type QaInput, type QaReport } from './qa.js';
export { queryArchive, type QueryEnd, type QueryInput } from './query.js';
export { searchArchive, type SearchInput, type SearchReport } from './search.js';
export { archiveReport } from './stats.js';
export { unlock, type UnlockReport } from './unlock.js';
export {
  checkControl,
  CONTROL_WAIT_MS,
  controlCrawl,
  controlStatus,
  ControlUnavailableError,
  isFrontier,
  type ControlAnswer,
  type ControlInput,
  type ControlRequest,
  type ControlStatus,
  type LiveRow,
  type RequestRow,
  type StoredControls,
} from './control.js';
export { compact, type CompactInput, type CompactReport } from './compact.js';
export { serve, type ServeInput, type ServingArchive } from './serve.js';
export { mcpHttp, mcpStdio, type McpHttpInput, type McpInput, type McpListening, type McpSession, type McpStdioInput } from './mcp.js';
export { DEMO_MARKS, NotADemoArchiveError, startDemo, type DemoSite } from './demo.js';
export * from './options.js';
export type { FetchEventType, OptionChange, RunNotice as CrawlNotice, StateCounts } from '../run/run-events.js';
export type { FetchReport } from '../pipeline/crawl-item.js';
export type { Reason } from '../pipeline/ports.js';
export type { LockOwner, RootState, SearchMode } from '../storage/public.js';
export {
  openArchive,
  type ArchivedLink,
  type ArchivedPage,
  type ArchivedUrl,
  type ArchiveReader,
  type ArchiveReport,
  type LinkKind,
  type PageFilter,
  type QaRow,
  type QueryParams,
  type ReadOnlyQuery,
  type SearchHit,
  type SearchOptions,
  type StoredMarkdown,
  type UrlKind,
  type UrlState,
} from '../storage/public.js';
export { CrawliteError } from '../crawlite-error.js';
export { stopWorkerThreads } from './stop-threads.js';
export { pageMarkdown, type PageMarkdown } from '../markdown/index.js';
export { NoArchiveFileError } from '../run/run-request.js';
export { FrontierExistsError, NoFrontierError, PgSchemaTooNewError, PgUnreachableError } from '../pg/pg-errors.js';
export { MergeIntoInputError, ShardSchemaError } from '../merge/merge-errors.js';
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
} from '../storage/public.js';
