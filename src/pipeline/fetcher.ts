/** One HTTP response as the pipeline sees it. */
export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ", except Set-Cookie and Location (with "\n": their values may hold commas). */
  headers: Record<string, string>;
  /** The Location to follow: the first one, when a response sends several. */
  location?: string;
  /** After Content-Encoding was undone. */
  body: Buffer;
  /** When the response had been read (ISO 8601 UTC). */
  fetchedAt: string;
  elapsedMs: number;
  /** The exchange as it went over the wire, for a faithful archive; absent where the fetcher cannot see it. */
  wire?: WireExchange;
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
  /** The address connected to (a proxy's, through a proxy); absent if unknown. */
  remoteIp?: string;
  /** When the request went out (ISO 8601 UTC, ms). */
  startedAt: string;
}

/**
 * The crawl's HTTP port: one GET per call, never following redirects (the
 * pipeline does, so every hop is recorded). Failures reject with the errors
 * of fetch-errors.ts, so the retry policy can classify them.
 */
export interface Fetcher {
  /** Rejects with CrawlStoppedError once `signal` aborts. */
  get(url: string, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** What the crawl wants to hear from its fetcher. */
export interface FetcherHooks {
  /** A request's headers went out to `origin` (a WHATWG origin): the moment the server sees it start, for per-host pacing. */
  onSent(origin: string): void;
}

/** Opens the crawl's fetcher when the crawl starts; it is closed when the crawl ends. */
export type FetcherFactory = (hooks: FetcherHooks) => Fetcher;
