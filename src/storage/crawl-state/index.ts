// The crawl-state room's door: what the rest of crawlite uses of it (the frontier, the page sinks, a run's record).
export { CrawlRecord, type RunEnd } from './crawl-record.js';
export { CrawlStateThread } from './crawl-state-thread.js';
export { latestCrawl, queueRecrawl, unfinishedUrls } from './queue-recrawl.js';
export { requeueFailed } from './requeue-failed.js';
export { ShardPageSink } from './shard-page-sink.js';
export { SqliteFrontier, type Root } from './sqlite-frontier.js';
export { SqlitePageSink } from './sqlite-page-sink.js';
