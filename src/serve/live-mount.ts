import { randomBytes } from 'node:crypto';
import type { ControlRequest } from '../pipeline/control-request.js';
import { requestControl, type ExclusionPreview, type LiveSnapshot } from '../storage/control/index.js';
import { startExclusionPreview, startLiveFeed, type LiveFeed } from '../storage/query/index.js';
import { CrawliteError } from '../crawlite-error.js';
import { QueryProcesses } from './query-processes.js';

// Where the live page's data comes from and where its controls go. Snapshots are read in a process of
// their own (bounded reads, yet a fifth of a second on an archive of a million URLs), at most once a second
// whatever the number of pages polling (a younger one is answered again), and only while one polls; a
// preview runs a user's pattern in a process a deadline kills; a control appends one row and leaves.

/** A snapshot this young is answered again instead of being read anew. */
export const SNAPSHOT_FRESH_MS = 900;
/** A snapshot not read in this long is given up (503), and its process killed. */
export const SNAPSHOT_TIMEOUT_MS = 10_000;
/** The snapshots' process ends after this long with no page polling. */
export const FEED_IDLE_MS = 30_000;

/** The live snapshot took longer than SNAPSHOT_TIMEOUT_MS: the archive's disk is stalled, or the file is huge and cold. */
export class LiveSnapshotTimeoutError extends CrawliteError {
  constructor() {
    super('LIVE_TIMEOUT', `reading how the crawl stands took longer than ${SNAPSHOT_TIMEOUT_MS / 1000} s; the page tries again`);
  }
}
/** A preview's time limit. */
export const PREVIEW_TIMEOUT_MS = 5000;

export interface UiLive {
  /** Random per serve process: the live page carries it, and every control must send it back (X-Crawlite-Token). */
  readonly token: string;
  /** Host values the live page and its controls answer (the UI's own names, not the replay page's). */
  readonly hosts: ReadonlySet<string> | undefined;
  snapshot(): Promise<LiveSnapshot>;
  preview(pattern: string): Promise<ExclusionPreview>;
  /** Appends a request (checked: live-controls.ts) for the crawl to apply. */
  request(request: ControlRequest): Promise<{ id: number; requestedAt: string }>;
  close(): void;
}

export function uiLive(path: string, hosts?: ReadonlySet<string>, previewTimeoutMs = PREVIEW_TIMEOUT_MS): UiLive {
  const previews = new QueryProcesses(1, 4);
  let feed: LiveFeed | undefined;
  let reading: Promise<LiveSnapshot> | undefined;
  let idle: NodeJS.Timeout | undefined;
  let closed = false;
  let last: { at: number; snapshot: LiveSnapshot } | undefined;
  const stopFeed = () => {
    feed?.stop();
    feed = undefined;
  };
  /** One snapshot from the feed (started if need be), within SNAPSHOT_TIMEOUT_MS. */
  async function read(): Promise<LiveSnapshot> {
    feed ??= startLiveFeed(path);
    const from = feed;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        from.next(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new LiveSnapshotTimeoutError()), SNAPSHOT_TIMEOUT_MS))),
      ]);
    } catch (error) {
      // A feed that failed or hung is not asked again: the next poll starts a fresh one.
      if (feed === from) stopFeed();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    token: randomBytes(32).toString('base64url'),
    hosts,
    async snapshot() {
      if (closed) throw new LiveSnapshotTimeoutError();
      clearTimeout(idle);
      idle = setTimeout(stopFeed, FEED_IDLE_MS);
      idle.unref();
      const now = Date.now();
      if (last && now - last.at < SNAPSHOT_FRESH_MS && now >= last.at) return last.snapshot;
      reading ??= read()
        .then((snapshot) => {
          last = { at: Date.now(), snapshot };
          return snapshot;
        })
        .finally(() => (reading = undefined));
      return reading;
    },
    async preview(pattern) {
      let preview: ExclusionPreview | undefined;
      const found = await previews.run(
        () => startExclusionPreview(path, pattern, (result) => (preview = result), { timeoutMs: previewTimeoutMs }),
        () => preview,
        undefined,
      );
      return found ?? { matches: 0, scanned: 0, cut: true };
    },
    request: (request) => requestControl(path, request, 'serve'),
    close() {
      closed = true;
      clearTimeout(idle);
      previews.close();
      stopFeed();
    },
  };
}
