/** Everything that shapes a crawl. Stored in the archive so `resume` needs only the file. */
export interface CrawlOptions {
  /** Requests in flight at most, across the crawl. */
  concurrency: number;
  /** Redirects followed from one URL before it is failed. */
  maxRedirects: number;
  /** Attempts per URL, the first included. */
  maxTries: number;
  /** Whole-request limit: connecting, headers and body. */
  timeoutMs: number;
  /** Base of the exponential backoff between tries. */
  retryDelayMs: number;
  /** Largest body kept, counted after Content-Encoding is undone. */
  maxBodyBytes: number;
  /** Also accept subdomains of each root's registrable domain. */
  lenient: boolean;
  /** Regular expressions (sources) of URLs not to fetch. */
  exclude: string[];
  userAgent: string;
}

export const DEFAULT_OPTIONS: Omit<CrawlOptions, 'userAgent'> = {
  concurrency: 10,
  maxRedirects: 10,
  maxTries: 4,
  timeoutMs: 30_000,
  retryDelayMs: 1_000,
  maxBodyBytes: 100 * 1024 * 1024,
  lenient: false,
  exclude: [],
};

/** Retry-After is honoured up to this long; a server asking for more gets this. */
export const MAX_RETRY_AFTER_MS = 60_000;
