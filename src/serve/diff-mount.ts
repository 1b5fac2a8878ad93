import { startDiff, type CapturesDiff, type DiffAsked, type DiffLimits, type RunningQuery } from '../storage/query/index.js';
import { SearchSlots } from './search-slots.js';

// Where the changes page's text diff comes from: each in a process of its own (src/storage/query),
// as a search is, with a deadline, a few at a time, and bounded in what it reads and compares. A
// capture of tens of megabytes took seconds to parse, and on serve's own thread those seconds held
// up every request, replay included.

/** The whole diff, from its process's start: past it the process is killed and the page says the diff was cut short. */
export const DIFF_TIMEOUT_MS = 5000;
/** What one diff reads and compares at most (diff-captures.ts): the first 4 MB of each capture, the first 256 K characters of each text. */
export const DIFF_LIMITS: DiffLimits = { bodyBytes: 4 * 1024 * 1024, textChars: 256 * 1024, compareMs: 2000 };
/** Diffs running at once, and queued behind them; more are refused with 503. */
export const DIFFS_RUNNING = 2;
export const DIFFS_WAITING = 8;

export interface UiDiff {
  readonly timeoutMs: number;
  readonly limits: DiffLimits;
  /** Rejects with DiffTimeoutError (DIFF_TIMEOUT) past the deadline, SearchBusyError (SEARCH_BUSY) when too many wait. */
  diff(asked: DiffAsked): Promise<CapturesDiff>;
  /** Kills the diffs running; none starts after. */
  close(): void;
}

export function uiDiff(path: string, timeoutMs: number = DIFF_TIMEOUT_MS, limits: DiffLimits = DIFF_LIMITS): UiDiff {
  const slots = new SearchSlots(DIFFS_RUNNING, DIFFS_WAITING);
  const running = new Set<RunningQuery>();
  let closed = false;
  return {
    timeoutMs,
    limits,
    async diff(asked) {
      const free = await slots.take();
      if (closed) {
        free();
        return { kind: 'not-archived' };
      }
      let found: CapturesDiff = { kind: 'not-archived' };
      let diff: RunningQuery;
      try {
        diff = startDiff(path, asked, limits, (result) => void (found = result), { timeoutMs });
      } catch (error) {
        free();
        throw error;
      }
      // The slot is free once the process is gone, not when its answer is: a killed one may take a moment to end.
      void diff.exited.then(free);
      running.add(diff);
      try {
        await diff.finished;
      } finally {
        running.delete(diff);
      }
      return found;
    },
    close() {
      closed = true;
      for (const diff of running) diff.stop();
    },
  };
}
