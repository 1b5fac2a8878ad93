// The archive room's door: what the rest of crawlite uses of it.
export * from './archive-errors.js';
export * from './archive-lock.js';
export * from './demo-archive.js';
export * from './lock-holder.js';
export * from './migrate.js';
export * from './open-archive.js';
export * from './open-crawl-archive.js';
export * from './shard-file.js';
export * from './sqlite-driver.js';
export * from './unlock-archive.js';
export * from './body-bytes.js';
export * from './link-kind-codes.js';
export * from './compact-archive.js';
