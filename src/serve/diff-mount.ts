import { startDiff, type CapturesDiff, type DiffAsked, type DiffLimits } from '../storage/query/index.js';
import { QueryProcesses } from './query-processes.js';

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
  const processes = new QueryProcesses(DIFFS_RUNNING, DIFFS_WAITING);
  return {
    timeoutMs,
    limits,
    async diff(asked) {
      let found: CapturesDiff = { kind: 'not-archived' };
      return processes.run(
        () => startDiff(path, asked, limits, (result) => void (found = result), { timeoutMs }),
        () => found,
        { kind: 'not-archived' },
      );
    },
    close: () => processes.close(),
  };
}
