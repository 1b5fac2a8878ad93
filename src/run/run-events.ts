import type { FetchReport } from '../pipeline/crawl-item.js';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import type { SessionNote } from './session.js';

/** A stored option this run replaces: from now on the archive keeps `value`. */
export interface OptionChange {
  option: keyof CrawlOptions;
  value: unknown;
  was: unknown;
}

/** What the run has to tell before it starts fetching. */
export type RunNotice =
  /** A reader (query, stats, another program) holds the archive; the run waits for it. */
  | { kind: 'waiting-for-reader'; message: string }
  /** `retry`: this many failed URLs are queued again with fresh tries. */
  | { kind: 'failed-requeued'; count: number }
  /** A new crawl: its roots and concurrency. */
  | { kind: 'starting'; roots: string[]; concurrency: number }
  /** A re-crawl: the crawl it starts, and how many URLs of the archive are queued again. */
  | { kind: 'recrawling'; crawl: number; queued: number }
  /** An archive with a crawl in it: its counts, and the URLs the last run left in flight, queued again. */
  | { kind: 'resuming'; done: number; queued: number; requeued: number }
  /** A resume of a crawl with nothing left to fetch: the run fetches nothing (`recrawl` fetches again). */
  | { kind: 'complete'; done: number; failed: number; skipped: number }
  /** Options given that differ from the stored ones; they are stored from now on. */
  | { kind: 'options-changed'; changes: OptionChange[] }
  /** Session settings the last run used and this one lacks (they are never stored). */
  | { kind: 'session-missing'; missing: SessionNote }
  /** URLs queued by an earlier run that match an --exclude given now: skipped, never requested. */
  | { kind: 'excluded-queued'; count: number }
  /**
   * The crawl is paused: by `crawlite control` or serve's live page (`at start`: it was when the last run
   * ended), or by itself for want of disk (`free` bytes left, under --min-free-disk `min`).
   */
  | { kind: 'paused'; by: 'control' | 'serve' | 'disk'; atStart?: boolean; free?: number; min?: number }
  | { kind: 'resumed' }
  /** Another process changed the running crawl: `what` it did, in words. */
  | { kind: 'controlled'; what: string };

/** URLs in the archive by state. */
export interface StateCounts {
  queued: number;
  fetching: number;
  done: number;
  failed: number;
  skipped: number;
}

export type FetchEventType = 'fetched' | 'failed' | 'skipped';

/** Everything a run reports while it runs, in order: notices, `started`, then fetches and progress. */
export type RunEvent =
  | { type: 'notice'; notice: RunNotice }
  /** Fetching begins, with the roots and the options the run uses. */
  | { type: 'started'; runId: number; roots: string[]; options: CrawlOptions }
  /** One URL finished: stored (`fetched`), failed after its tries, or skipped (robots.txt). */
  | { type: FetchEventType; report: FetchReport }
  /** The archive's counts and the requests on the wire, at a regular interval when asked for. */
  | { type: 'progress'; counts: StateCounts; inFlight: number };
