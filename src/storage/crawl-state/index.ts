// The crawl-state room's door: what the rest of crawlite uses of it. An archive opened under the crawl lock
// (LockedArchive) with what its writers do; the objects it hands out are named here as types only, since no
// other room can build them (each takes a connection, which stays inside storage).
export type { CrawlRecord, RunEnd } from './crawl-record.js';
export type { CrawlStateThread } from './crawl-state-thread.js';
export { LockedArchive } from './locked-archive.js';
export type { Root, SqliteFrontier } from './sqlite-frontier.js';
