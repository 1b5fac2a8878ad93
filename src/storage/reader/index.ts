// The reader room's door: what the rest of crawlite uses of it.
export * from './archive-overview.js';
export * from './archive-reader.js';
export * from './archive-report.js';
export * from './crawl-changes.js';
export * from './links-to.js';
export * from './media-types.js';
export * from './reader-types.js';
export { QUERY_VARIANTS_LIMIT } from './query-variants.js';
export { SCREENSHOT_TYPES, screenshotType, type ScreenshotType } from './screenshots.js';
export * from './url-listing.js';
export * from './archive-relations.js';
export * from './crawl-changes-page.js';
export { hasQaChecks, QaPages, qaTotals, worstQaRows } from './qa-checks.js';
