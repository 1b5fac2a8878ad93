// The reader room's door: what the rest of crawlite uses of it (the ArchiveReader for pages, ArchiveFacts for the rest).
export { ArchiveFacts } from './archive-facts.js';
export type { ArchiveOverview, HostCount } from './archive-overview.js';
export { openArchive, type ArchiveReader, type ArchivedCrawl } from './archive-reader.js';
export type { StoredMarkdown } from './reader-types.js';
export type { ArchiveRelation } from './archive-relations.js';
export { archiveReport, rootStates, urlStateCounts } from './archive-report.js';
export type { ArchivedPage, CaptureTime } from './archive-views.js';
export { changeCountsQuery, changesPageQuery } from './crawl-changes-page.js';
export { NotCapturedError, type CapturedContent } from './crawl-changes.js';
export { mediaType } from './media-types.js';
export { QaPages } from './qa-checks.js';
export { QUERY_VARIANTS_LIMIT } from './query-variants.js';
export {
  CHANGE_KINDS,
  type ArchiveReport,
  type ChangeKind,
  type QaPage,
  type QaRow,
  type QueryParams,
  type RootState,
  type Screenshot,
} from './reader-types.js';
export { SCREENSHOT_TYPES, screenshotType, type ScreenshotType } from './screenshots.js';
export { SCAN_ROWS, STATUS_CLASSES, type StatusClass, type UrlListingFilter, type UrlListingRow } from './url-listing.js';
