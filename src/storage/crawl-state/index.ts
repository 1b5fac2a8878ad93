// The crawl-state room's door: what the rest of crawlite uses of it.
export * from './crawl-record.js';
export * from './queue-recrawl.js';
export * from './requeue-failed.js';
export * from './shard-page-sink.js';
export * from './sqlite-frontier.js';
export * from './sqlite-page-sink.js';
export * from './crawl-state-thread.js';
