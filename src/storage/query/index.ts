// The query room's door: what the rest of crawlite uses of it.
export * from './query-worker-client.js';
export * from './search-archive.js';
export * from './search-in-worker.js';
export * from './search-limits.js';
export * from './browse-relation.js';
export * from './start-rows-query.js';
export * from './cut-cell.js';
export type { RowsFormat } from './encode-rows.js';
export * from './diff-in-worker.js';
