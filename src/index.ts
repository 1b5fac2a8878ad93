/**
 * crawlite as a library: crawl a site into one SQLite file, resume it, and read it back;
 * or share a crawl among workers through PostgreSQL and merge their shards.
 * The command line is a shell over these same functions (src/library/index.ts).
 */
export * from './library/index.js';
