/** Retry-After is honoured up to this long; a server asking for more gets this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Crawl-delay from robots.txt is honoured up to this long. */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** URLs longer than this are skipped: no server needs them and traps grow them. */
export const MAX_URL_LENGTH = 8 * 1024;

/**
 * A response's header block at most, in bytes: four times Node's default, far past what servers
 * send (nginx passes at most 4-8 KiB of a backend's headers on by default). A server sending more
 * fails the URL (`headers_too_large`, not retried), and import skips such a record, so a header
 * line cannot make the crawler hold what it likes.
 */
export const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;

/** Redirects of robots.txt followed before giving up on it. */
export const MAX_ROBOTS_REDIRECTS = 5;

/** The longest wait any option may ask for: a day, well below setTimeout's limit of 2^31-1 ms (about 24.8 days). */
export const MAX_WAIT_MS = 24 * 60 * 60 * 1000;

/** Counts (pages, depth, links) beyond this are no limit at all in practice, and stay exact in JSON and SQLite. */
export const MAX_COUNT = 1_000_000_000;

/** Requests in flight: far above what one process on one machine can keep busy. */
export const MAX_IN_FLIGHT = 1_000;

/** SQLite's largest blob (SQLITE_MAX_LENGTH): a bigger body could not be stored. */
export const MAX_STORED_BODY_BYTES = 1_000_000_000;

/** A free-disk limit at most: a pebibyte, beyond any disk, exact in JSON and SQLite. */
export const MAX_DISK_BYTES = 2 ** 50;
