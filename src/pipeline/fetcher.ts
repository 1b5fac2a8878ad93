import type { Validators, WireExchange } from './ports.js';

export type { WireExchange };

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

/**
 * The crawl's HTTP port: one GET per call, never following redirects (the
 * pipeline does, so every hop is recorded). Failures reject with the errors
 * of fetch-errors.ts, so the retry policy can classify them.
 */
export interface Fetcher {
  /**
   * Rejects with CrawlStoppedError once `signal` aborts. With `validators` the
   * request is conditional (If-None-Match, If-Modified-Since). `onSent` is
   * called once, when this request's head goes out (never, if it does not).
   */
  get(url: string, signal: AbortSignal, validators?: Validators, onSent?: () => void): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** What the crawl wants to hear from its fetcher. */
export interface FetcherHooks {
  /** A request's headers went out to `origin` (a WHATWG origin): the moment the server sees it start, for per-host pacing. */
  onSent(origin: string): void;
}

/** Opens the crawl's fetcher when the crawl starts; it is closed when the crawl ends. */
export type FetcherFactory = (hooks: FetcherHooks) => Fetcher;
