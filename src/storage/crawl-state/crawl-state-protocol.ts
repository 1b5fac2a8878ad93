import type { SinkLimits } from './sqlite-page-sink.js';

/** What the crawl-state thread opens, once the archive is ready for the run. */
export interface CrawlStateSetup {
  path: string;
  runId: number;
  crawl: number;
  limits: SinkLimits;
}

/** The frontier's and the sink's methods the thread answers, by name. */
export type CrawlStateMethod =
  | 'claimFrom'
  | 'queuedOrigins'
  | 'release'
  | 'claimOwn'
  | 'renew'
  | 'storedResponse'
  | 'pagesFetched'
  | 'requeueRobotsUnavailable'
  | 'commitAll'
  | 'waitingControl'
  | 'applyControl'
  | 'writeLive';

export interface CrawlStateCall {
  id: number;
  method: CrawlStateMethod;
  args: unknown[];
}

/** An error as it crosses: its message and SQLite's code (SQLITE_FULL...), so the main thread raises what the sink would have. */
export interface CrossedError {
  message: string;
  code?: string;
  /** The archive could not be written (a full or failing disk, a file gone): raised as an ArchiveWriteError. */
  write?: boolean;
}

export type CrawlStateReply = { id: number; value: unknown } | { id: number; failure: CrossedError };

/** The first message to the thread: the archive to open, and for which run. */
export interface CrawlStateOpen {
  open: CrawlStateSetup;
}

/** Sent once the thread's connection is open and its statements prepared (or the failure that kept it from opening). */
export type CrawlStateReady = { ready: true } | { ready: false; failure: CrossedError };

export const CLOSE = 'close';

/** The thread's answer to CLOSE: its connection is closed (the thread itself ends a moment later). */
export const CLOSED = 'closed';
