import { CrawliteError } from '../../crawlite-error.js';
import type { LiveSnapshot } from '../control/live-view.js';
import { startWorker } from './query-worker-client.js';

/** What the live feed's process failed at (NOT_AN_ARCHIVE, a damaged file, ...), with its code and words. */
export class LiveFeedError extends CrawliteError {
  constructor(code: string | undefined, message: string) {
    super(code ?? 'LIVE_FEED', message);
  }
}

/** Snapshots of a running crawl, read in a process of their own (LiveView). */
export interface LiveFeed {
  /** A snapshot read after this call; rejects once the process has failed or been stopped. */
  next(): Promise<LiveSnapshot>;
  /** Kills the process; every next() waiting rejects. */
  stop(): void;
}

interface Waiting {
  resolve: (snapshot: LiveSnapshot) => void;
  reject: (error: unknown) => void;
}

/**
 * Starts the process that reads serve's live snapshots: one each time next() asks for it, so the server's
 * event loop spends nothing on reading however large the archive, and no snapshot is read for nobody.
 */
export function startLiveFeed(path: string): LiveFeed {
  let waiting: Waiting[] = [];
  let askNext: (() => void) | undefined;
  let ended: unknown;
  const endAll = (error: unknown) => {
    ended ??= error;
    for (const one of waiting) one.reject(ended);
    waiting = [];
  };
  const running = startWorker(
    { type: 'live', path },
    {
      columns: () => {},
      rows: (rows) => {
        const snapshot = rows[0]![0] as LiveSnapshot;
        for (const one of waiting) one.resolve(snapshot);
        waiting = [];
        // The acknowledgement, which makes the process read the next one, waits for someone to ask.
        return new Promise<void>((resolve) => (askNext = resolve));
      },
    },
    { failed: (message, code) => new LiveFeedError(code, message) },
  );
  running.finished.then(
    () => endAll(new LiveFeedError('LIVE_FEED', 'the live feed was stopped')),
    (error: unknown) => endAll(error),
  );
  return {
    next() {
      if (ended !== undefined) return Promise.reject(ended);
      return new Promise<LiveSnapshot>((resolve, reject) => {
        waiting.push({ resolve, reject });
        const ask = askNext;
        askNext = undefined;
        ask?.();
      });
    },
    stop: () => running.stop(),
  };
}
