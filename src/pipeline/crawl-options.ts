/** Everything that shapes a crawl. Stored in the archive so `resume` needs only the file. */
export interface CrawlOptions {
  /** Requests in flight at most, across the crawl. */
  concurrency: number;
  /** Requests in flight at most on one origin; defaults to the concurrency. */
  perHost?: number;
  /** Minimum gap between request starts on one origin; when absent, robots.txt's Crawl-delay applies. */
  delayMs?: number;
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
  /** Regular expressions (sources) of which a URL must match one, when any are given. */
  include: string[];
  /** Link distance from a root beyond which pages are not fetched. */
  maxDepth?: number;
  /** Requests for URLs of kind `page` at most over the archive's life; requisites, sitemaps and robots.txt are not counted. */
  maxPages?: number;
  /** URLs at most sharing one path with different queries; 0 for no limit. */
  maxPerPath: number;
  /** A run of path segments repeated more than this many times in a row is a trap; 0 turns the guard off. */
  maxPathRepeats: number;
  /** Distinct URLs read from one response (page, stylesheet, sitemap) at most, the first in document order; 0 for no limit. */
  maxLinksPerPage: number;
  /** Obey robots.txt, Crawl-delay and nofollow. */
  robots: boolean;
  /** Seed the frontier from robots.txt Sitemap: lines and /sitemap.xml. */
  sitemaps: boolean;
  /** Fetch page requisites: images, scripts, stylesheets, media. */
  requisites: boolean;
  /** Fetch requisites from any host, not only those in scope (CDNs). */
  requisitesAnyHost: boolean;
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
  include: [],
  maxPerPath: 10_000,
  maxPathRepeats: 3,
  maxLinksPerPage: 10_000,
  robots: true,
  sitemaps: false,
  requisites: true,
  requisitesAnyHost: false,
};

/** Retry-After is honoured up to this long; a server asking for more gets this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Crawl-delay from robots.txt is honoured up to this long. */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** URLs longer than this are skipped: no server needs them and traps grow them. */
export const MAX_URL_LENGTH = 8 * 1024;

/** Redirects of robots.txt followed before giving up on it. */
export const MAX_ROBOTS_REDIRECTS = 5;
