// The merge room's door: what the rest of crawlite uses of it.
export * from './merge-archive.js';
export * from './merge-progress.js';
export * from './shard-bodies.js';
export * from './shard-schema.js';
export * from './shard-table-check.js';
