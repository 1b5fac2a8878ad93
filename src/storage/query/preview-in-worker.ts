import { CrawliteError } from '../../crawlite-error.js';
import type { ExclusionPreview } from '../control/exclusion-preview.js';
import { startWorker, type RunningQuery } from './query-worker-client.js';

export type { ExclusionPreview };

/** The preview ran past its deadline (a pattern that backtracks, a queue of millions) and was killed. */
export class PreviewTimeoutError extends CrawliteError {
  constructor(readonly timeoutMs: number) {
    super('PREVIEW_TIMEOUT', `counting the queued URLs that match took longer than ${timeoutMs} ms: simplify the pattern`);
  }
}

/** What the preview's process refused or failed at, with its code and words. */
export class PreviewFailedError extends CrawliteError {
  constructor(code: string | undefined, message: string) {
    super(code ?? 'PREVIEW_FAILED', message);
  }
}

/**
 * Counts, in a child process that the deadline and stop() kill wherever it is, the queued URLs `pattern`
 * (a JavaScript regular expression, already checked to compile) would make skipped (previewExclusion).
 */
export function startExclusionPreview(
  path: string,
  pattern: string,
  onPreview: (preview: ExclusionPreview) => void,
  deadline: { timeoutMs?: number } = {},
): RunningQuery {
  const { timeoutMs } = deadline;
  return startWorker(
    { type: 'preview', path, pattern },
    { columns: () => {}, rows: (rows) => onPreview(rows[0]![0] as ExclusionPreview) },
    {
      ...(timeoutMs !== undefined ? { timeout: { ms: timeoutMs, error: () => new PreviewTimeoutError(timeoutMs) } } : {}),
      failed: (message, code) => new PreviewFailedError(code, message),
    },
  );
}
