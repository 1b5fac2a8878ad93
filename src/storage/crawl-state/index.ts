// The crawl-state room's door: what the rest of crawlite uses of it (an archive opened under the crawl lock
// with what its writers do, the frontier, the page sinks, a run's record).
export { CrawlRecord, type RunEnd } from './crawl-record.js';
export { CrawlStateThread } from './crawl-state-thread.js';
export { LockedArchive } from './locked-archive.js';
export { ShardPageSink } from './shard-page-sink.js';
export { SqliteFrontier, type Root } from './sqlite-frontier.js';
export { SqlitePageSink } from './sqlite-page-sink.js';
