// The query room's door: what the rest of crawlite uses of it (queries, searches and diffs in a process of their own).
export type { SearchHit, SearchOptions } from '../reader/reader-types.js';
export { browseRelationSql } from './browse-relation.js';
export { isCutCell } from './cut-cell.js';
export type { CapturesDiff, DiffAsked, DiffLimits, DiffSide } from './diff-captures.js';
export { startDiff } from './diff-in-worker.js';
export type { RowsFormat } from './encode-rows.js';
export { startQuery, type RowSink, type RunningQuery } from './query-worker-client.js';
export { startLiveFeed, type LiveFeed } from './live-in-worker.js';
export { pagesWithoutTextIn } from './search-archive.js';
export { PreviewTimeoutError, startExclusionPreview, type ExclusionPreview } from './preview-in-worker.js';
export { startSearch } from './search-in-worker.js';
export { checkSearchSize } from './search-limits.js';
export { MAX_SQL_CHARS, startRowsQuery } from './start-rows-query.js';
