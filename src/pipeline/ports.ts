/**
 * The pipeline's vocabulary and the ports it crawls through. Storage
 * implements these; the pipeline never sees SQL. Every port answers with a
 * Promise, even where SQLite answers at once, so a frontier on a server
 * plugs in without touching the pipeline.
 */

export type UrlState = 'queued' | 'fetching' | 'done' | 'failed' | 'skipped';

/** What a URL is fetched for: a page to parse, a requisite of a page, a sitemap, or robots.txt. */
export type UrlKind = 'page' | 'requisite' | 'sitemap' | 'robots';

/** A URL taken from the frontier for fetching. */
export interface ClaimedUrl {
  id: number;
  /** The URL to request, as first found (WHATWG-normalised). */
  url: string;
  /** The deduplication key: the archive's identity of the URL. */
  key: string;
  /** scheme://host[:port] */
  origin: string;
  kind: UrlKind;
  depth: number;
  /** How many redirects led to this URL (0 for a link or a root). */
  redirectHops: number;
  /** Attempts made in earlier runs. */
  tries: number;
  /** This worker's hold on the URL; the pipeline renews it while the URL is in flight. */
  lease: Lease;
  /** Validators of the capture an earlier crawl stored: the request is conditional (a re-crawl only). */
  validators?: Validators;
}

/** What a conditional request sends back: the stored capture's ETag and Last-Modified, as received. */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

/**
 * A claim's hold on its URL. A frontier shared by several workers may let a
 * lease expire and hand the URL out again; one that serves a single run
 * gives leases that do not expire (`expiresAt` Infinity).
 */
export interface Lease {
  token: string;
  /** Epoch ms after which the frontier may give the URL to another claim. */
  expiresAt: number;
}

/** How a page pointed at a URL. */
export type LinkKind = 'link' | 'requisite' | 'redirect' | 'refresh' | 'canonical' | 'sitemap';

/** A URL found on a page, in a redirect or in a sitemap, already normalised and judged. */
export interface DiscoveredUrl {
  url: string;
  key: string;
  origin: string;
  /** How it was found: the `kind` of its row in links. */
  kind: LinkKind;
  /** What it is to be fetched as, if it is queued. */
  target: UrlKind;
  /** Origin and path when the URL has a query: query variants of one path are capped. */
  pathKey?: string;
  /** rel="nofollow", or a page with <meta name="robots" content="nofollow">. */
  nofollow?: boolean;
  depth: number;
  redirectHops: number;
  /** Why it will not be fetched; absent when it is to be queued. */
  skip?: Reason;
  /** A hint that the URL is already in the archive at this depth or less, so no insert is tried. */
  known?: boolean;
  /** Recorded in links only, never queued (rel=canonical). */
  linkOnly?: boolean;
}

/** A response's status line and header block as received, and the request as sent. */
export interface WireExchange {
  /** 'HTTP/1.1' or 'HTTP/1.0', as on the status line. */
  httpVersion: string;
  /** The reason phrase as sent ('OK', 'Quite Fine'); '' when the server sent none. */
  reason: string;
  /** The response header block: 'Name: value' lines each ending in CRLF, in order, case and repeats as received. */
  rawHeaders: Buffer;
  requestMethod: string;
  /** As on the request line: origin form ('/a?b'), or absolute form through a proxy. */
  requestTarget: string;
  /** The request header block as written to the connection, in the same form as rawHeaders. */
  requestHeaders: Buffer;
  /** The address connected to (a proxy's, through a proxy); absent (null in a column) if unknown. */
  remoteIp?: string;
  /** When the request went out (ISO 8601 UTC, ms). */
  startedAt: string;
}

/** The fields of T as columns hold them: each one present, null where nothing was recorded. */
export type Recorded<T> = { [K in keyof T]-?: Exclude<T[K], undefined> | null };

/**
 * A capture's columns, declared once for every place that holds one (the response and capture tables, the
 * pages and captures views, an imported record): the response, and the exchange it came in over the wire
 * (null when not recorded: a resource record, or a capture stored before the archive kept the wire).
 */
export interface CaptureColumns extends Recorded<WireExchange> {
  status: number;
  contentType: string | null;
  /** The encoding the body was decoded with to find its links. */
  charset: string | null;
  /** The Location header of a redirect. */
  location: string | null;
  /** Lower-case names; repeated headers joined with ", " (set-cookie and location with "\n"). */
  headers: Record<string, string>;
  /** ISO 8601 UTC. */
  fetchedAt: string;
  elapsedMs: number;
  title: string | null;
  canonical: string | null;
  /** Directives of `<meta name="robots">`, comma-separated. */
  robots: string | null;
  /** Link references not read because of --max-links-per-page; 0 when all were read. */
  linksDropped: number;
  /** WARC-Truncated of an imported capture whose payload is not whole ('length', 'time', 'disconnect', ...); null when whole (schema 11 on). */
  truncated: string | null;
  /** What a request other than GET sent (an imported POST's body); only captures have one (schema 11 on). */
  requestBody: Buffer | null;
}

/** A fetched response as the pipeline hands it to storage; what a crawl does not always learn is optional. */
export interface StoredResponse
  extends
    Pick<CaptureColumns, 'status' | 'headers' | 'contentType' | 'charset' | 'location' | 'fetchedAt' | 'elapsedMs'>,
    Partial<Pick<CaptureColumns, 'title' | 'canonical' | 'robots' | 'linksDropped'>> {
  /** Bytes received, after Content-Encoding was undone. */
  body: Uint8Array;
  /** The body's SHA-256 if already computed (off the main thread); the sink computes it otherwise. */
  sha256?: Buffer;
  /** The body's SHA-1 (the WARC payload digest) if already computed with the SHA-256; the sink computes it for a new body otherwise. */
  sha1?: Buffer;
  /** The body compressed for a compact archive (sqlar convention: shorter than the body), made off the main thread; the sink compresses it otherwise. */
  stored?: Uint8Array;
  /** An HTML page's words, kept for full-text search; absent for other responses and with --no-text. */
  text?: PageText;
  /** The exchange as it went over the wire, when the fetcher saw it. */
  wire?: WireExchange;
  /**
   * A 304 to a conditional request: the stored capture is confirmed, so only
   * the exchange's time and wire columns are new; nothing else here is stored.
   */
  revalidated?: boolean;
}

/** What the search index keeps of a page besides its title. */
export interface PageText {
  /** Visible text, whitespace collapsed, at most 1 MiB of characters. */
  body: string;
  /** The text of each h1–h6, one per line. */
  headings: string;
  /** The page's `<meta name="description">`. */
  description?: string;
  /** Which version of text extraction made it: `reindex` extracts again what an older one made. */
  version: number;
}

/** A machine-readable code and a sentence for people, for a failure or a skip. */
export interface Reason {
  code: string;
  message: string;
}

/** A resource a page fetched while it rendered in a browser (crawl --browser), committed with the page. */
export interface PageExchange {
  /** As requested, and its archive identity. */
  url: string;
  key: string;
  origin: string;
  /** The response, and in its wire the request's method and headers. */
  response: StoredResponse;
  /** What a request other than GET sent. */
  requestBody?: Uint8Array;
}

/**
 * A bound the render ran into: the load event's time ('time'), the network going quiet ('network-idle'),
 * scrolling to the bottom ('scroll'), taking the picture ('screenshot'). The page is captured as it was then.
 */
export type RenderCap = 'network-idle' | 'scroll' | 'time' | 'screenshot';

/** What a rendered page looked like. */
export interface Screenshot {
  type: 'image/webp' | 'image/png';
  data: Uint8Array;
}

/** Everything learnt about one claimed URL, committed in one transaction. */
export interface PageOutcome {
  claim: ClaimedUrl;
  /** `skipped`: claimed, then not fetched (robots.txt disallows it). */
  state: 'done' | 'failed' | 'skipped';
  /** Attempts made in total, over all runs. */
  tries: number;
  error?: Reason;
  /** The latest HTTP response, if any came. */
  response?: StoredResponse;
  discovered: DiscoveredUrl[];
  /** Everything else the page fetched as it rendered in a browser: all of it is stored with the page, or none. */
  exchanges?: PageExchange[];
  /** The rendered page, as it looked. */
  screenshot?: Screenshot;
  /** The bounds its render ran into (crawl --browser), kept with its capture. */
  renderNotes?: RenderCap[];
}

export interface CommitResult {
  /**
   * How many discovered URLs gave the crawl more to do: new to the archive, or known and queued again or
   * moved closer to a root by this commit (the rules of src/pipeline/frontier-rules.ts).
   */
  newUrls: number;
  /** The claim's lease had been lost (expired and handed out again): nothing of the page was stored. */
  leaseLost?: boolean;
  /** Origins of the URLs a confirmed (304) page's stored links queued again for this crawl. */
  revisitedOrigins?: string[];
}

/** What the frontier tells of a stored response. */
export interface StoredSummary {
  status: number;
  body: Uint8Array;
  location: string | null;
  due?: boolean;
}

/**
 * How a frontier paces the requests of an origin. The crawl keeps every gap
 * between its own requests (its scheduler, per origin); a frontier shared by
 * several workers paces them all across workers too, from when each request
 * went out. A frontier that serves one process has nothing to share: its
 * `sent` and `paceRetry` answer at once and change nothing.
 */
export interface FrontierPacing {
  /**
   * The request for `claim` went out now: on a shared frontier, the origin's
   * next start (across all workers) counts from here. Called for every
   * request, the retries' too; does nothing unless `claim` is a paced claim
   * of this worker whose request had not gone out. The crawl does not wait
   * for it, and a failure is not the request's.
   */
  sent(claim: ClaimedUrl): Promise<void>;
  /**
   * Before a retry of `claim` goes out: on a shared frontier, waits until the
   * origin's next start across all workers is due (and returns early once
   * `signal` aborts); at once where nothing is paced across workers.
   */
  paceRetry(claim: ClaimedUrl, signal: AbortSignal): Promise<void>;
}

export interface FrontierPort extends FrontierPacing {
  /** Marks up to `limit` queued URLs of one origin (only requisites, if asked) as fetching and returns them, oldest first. */
  claimFrom(origin: string, limit: number, only?: 'requisite'): Promise<ClaimedUrl[]>;
  /** The origins that have queued URLs. */
  queuedOrigins(): Promise<string[]>;
  /**
   * Returns a claimed URL to the queue untouched (a stop interrupted it, or it was claimed ahead and not
   * needed). Until another claim takes the URL, a commit of this claim is still stored.
   */
  release(claim: ClaimedUrl): Promise<void>;
  /**
   * Claims a URL the crawler fetches of its own accord (robots.txt and its
   * redirects), adding it if new; undefined when it is done or in flight,
   * or known as another kind of URL (a page) and not an origin's robots.txt.
   */
  claimOwn(url: Pick<ClaimedUrl, 'url' | 'key' | 'origin' | 'kind' | 'depth' | 'redirectHops'>): Promise<ClaimedUrl | undefined>;
  /** Extends the leases of claims still in flight: each one's new lease, or undefined where it was lost. */
  renew(claims: readonly ClaimedUrl[]): Promise<(Lease | undefined)[]>;
  /**
   * The stored answer of a URL the crawler fetched of its own accord (robots.txt and the hops of its
   * redirects, claimed with claimOwn), if it has one; a page's response is the sink's, never answered
   * here. `due` when the URL is queued to be fetched again (a re-crawl), so the stored one is only what a
   * 304 would confirm.
   */
  storedResponse(key: string): Promise<StoredSummary | undefined>;
  /** URLs of kind `page` fetched so far (done or failed): for --max-pages, which counts no requisite, sitemap or robots.txt. */
  pagesFetched(): Promise<number>;
  /**
   * Queues again the URLs skipped because their origin's robots.txt could not
   * be had (of one origin, or of all); returns how many.
   */
  requeueRobotsUnavailable(origin?: string): Promise<number>;
}

/**
 * A sink may take the bytes it is given (a body, a screenshot) rather than copy them, moving them to
 * the thread that writes: once an outcome is handed to commit, its bytes are not read again.
 */
export interface PageSinkPort {
  /** Stores a page, its links and its final state together, or nothing; nothing either when the claim's lease was lost. */
  commit(outcome: PageOutcome): Promise<CommitResult>;
  /** The same for several pages in one transaction: all of them, or none. */
  commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]>;
}

/** Who asked a running crawl for a change: `crawlite control`, or serve's live page. */
export type ControlSource = 'control' | 'serve';

/** Settings `crawlite control set` changes while the crawl runs; absent ones stay as they are. */
export interface ControlSettingsChange {
  concurrency?: number;
  perHost?: number;
  delayMs?: number;
  minFreeDisk?: number;
}

/**
 * A request from another process, as the archive applied it (its stored part: the setting, the exclusion and
 * the queue it pruned, its outcome); what remains is its effect on the running crawl.
 */
export type AppliedControl =
  | { command: 'pause'; by: ControlSource }
  | { command: 'resume' }
  | { command: 'stop' }
  | { command: 'set'; settings: ControlSettingsChange }
  | { command: 'exclude'; pattern: string }
  /** `requeued`: the origins of the URLs the exclusion had kept, queued again. */
  | { command: 'include'; pattern: string; requeued: string[] };

/** What only the running crawl knows, for other processes to read (`crawlite control status`, serve). */
export interface LiveState {
  pid: number;
  state: 'running' | 'paused' | 'stopping' | 'ended';
  pausedBy: string | null;
  inFlight: number;
  concurrency: number;
  perHost: number;
  delayMs: number | null;
  startedAt: string;
}

/** How a running crawl hears from other processes, and tells them how it stands. */
export interface ControlPort {
  /**
   * The requests waiting: the last one's id, and the patterns of the exclusions among them. The crawl follows
   * those before they are applied, so that nothing matching one starts once it is recorded as applied.
   */
  waiting(): Promise<{ upTo: number; exclusions: string[] }>;
  /** Applies the requests waiting up to id `upTo`, in order, and records each one's outcome; returns those applied. */
  applyWaiting(upTo?: number): Promise<AppliedControl[]>;
  /** Writes the crawl's live row. */
  writeLive(live: LiveState): Promise<void>;
}
