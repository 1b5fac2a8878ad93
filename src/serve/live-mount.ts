import { randomBytes } from 'node:crypto';
import type { ControlRequest } from '../pipeline/control-request.js';
import { LiveView, requestControl, type ExclusionPreview, type LiveSnapshot } from '../storage/control/index.js';
import { startExclusionPreview } from '../storage/query/index.js';
import { QueryProcesses } from './query-processes.js';

// Where the live page's data comes from and where its controls go. Snapshots are read at most once a
// second whatever the number of pages polling (a younger one is answered again); a
// preview runs a user's pattern in a process a deadline kills; a control appends one row and leaves.

/** A snapshot this young is answered again instead of being read anew. */
export const SNAPSHOT_FRESH_MS = 900;
/** A preview's time limit. */
export const PREVIEW_TIMEOUT_MS = 5000;

export interface UiLive {
  /** Random per serve process: the live page carries it, and every control must send it back (X-Crawlite-Token). */
  readonly token: string;
  /** Host values the live page and its controls answer (the UI's own names, not the replay page's). */
  readonly hosts: ReadonlySet<string> | undefined;
  snapshot(): LiveSnapshot;
  preview(pattern: string): Promise<ExclusionPreview>;
  /** Appends a request (checked: live-controls.ts) for the crawl to apply. */
  request(request: ControlRequest): Promise<{ id: number; requestedAt: string }>;
  close(): void;
}

export function uiLive(path: string, hosts?: ReadonlySet<string>, previewTimeoutMs = PREVIEW_TIMEOUT_MS): UiLive {
  const previews = new QueryProcesses(1, 4);
  let view: LiveView | undefined;
  let last: { at: number; snapshot: LiveSnapshot } | undefined;
  return {
    token: randomBytes(32).toString('base64url'),
    hosts,
    snapshot() {
      const now = Date.now();
      if (last && now - last.at < SNAPSHOT_FRESH_MS && now >= last.at) return last.snapshot;
      view ??= LiveView.open(path);
      last = { at: now, snapshot: view.snapshot(new Date(now)) };
      return last.snapshot;
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
      previews.close();
      view?.close();
      view = undefined;
    },
  };
}
