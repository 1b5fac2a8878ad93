import { CrawliteError } from '../../crawlite-error.js';
import type { CapturesDiff, DiffAsked, DiffLimits } from './diff-captures.js';
import { startWorker, type RunningQuery } from './query-worker-client.js';

export type { CapturesDiff, DiffAsked, DiffLimits, DiffSide } from './diff-captures.js';

/** The text diff ran past its deadline and was killed. */
export class DiffTimeoutError extends CrawliteError {
  constructor(readonly timeoutMs: number) {
    const after = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
    super('DIFF_TIMEOUT', `the comparison was cut short after ${after}, its time limit`);
  }
}

/** What the diff's process refused or failed at (NOT_AN_ARCHIVE, a damaged file, ...), with its code and words. */
export class DiffFailedError extends CrawliteError {
  constructor(code: string | undefined, message: string) {
    super(code ?? 'DIFF_FAILED', message);
  }
}

/**
 * Compares two captures' text (diffCaptures) in a child process, which the deadline and stop() kill
 * wherever it is: parsing a capture is seconds of JavaScript on a page of tens of megabytes.
 */
export function startDiff(
  path: string,
  asked: DiffAsked,
  limits: DiffLimits,
  onDiff: (diff: CapturesDiff) => void,
  deadline: { timeoutMs?: number } = {},
): RunningQuery {
  const { timeoutMs } = deadline;
  return startWorker(
    { type: 'diff', path, asked, limits },
    { columns: () => {}, rows: (rows) => onDiff(rows[0]![0] as CapturesDiff) },
    {
      ...(timeoutMs !== undefined ? { timeout: { ms: timeoutMs, error: () => new DiffTimeoutError(timeoutMs) } } : {}),
      failed: (message, code) => new DiffFailedError(code, message),
    },
  );
}
