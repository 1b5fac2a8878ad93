import { hostname } from 'node:os';
import type { LockOwner, QaRow } from '../storage/public.js';
import { InvalidOptionError } from '../pipeline/validate-crawl-options.js';

/** How faithfully an archive replays: every page replayed in Chromium and scored, as `crawlite qa` does. */
export interface QaInput {
  /** An existing archive. */
  db: string;
  /** The Chromium to run; default $CRAWLITE_CHROMIUM, else /usr/bin/chromium. */
  chromium?: string;
  /** Pages replayed at once (1-16); default 2. */
  concurrency?: number;
  /** How long one page's replay and measures may take, in ms (1-3600000); default 30000. */
  pageTimeoutMs?: number;
  /** Pages scoring below it are counted in the report (0-1); default 0.8. */
  threshold?: number;
  /** How many of the worst pages the report lists; default 5. */
  worst?: number;
  /** Named in the archive while the run writes it; this process by default. */
  owner?: LockOwner;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
  /** Told once before the first page (done 0), then after each page's score is stored. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Aborting it ends the run after the pages being replayed; the scores stored stay. */
  signal?: AbortSignal;
}

export interface QaReport {
  archive: string;
  /** Pages to replay: the latest capture of each HTML page answered 2xx. */
  total: number;
  /** Pages this run scored. */
  checked: number;
  /** Of those, pages whose replay could not be measured (a time limit, a crash): scored 0, with the error. */
  errors: number;
  /** Ended by the signal before every page was checked. */
  stopped: boolean;
  /** Over the pages this run scored; null when none. */
  mean: number | null;
  median: number | null;
  threshold: number;
  /** Pages this run scored below the threshold. */
  below: number;
  /** This run's worst pages, worst first. */
  worst: QaRow[];
  ms: number;
}

export const QA_DEFAULTS = { concurrency: 2, pageTimeoutMs: 30_000, threshold: 0.8, worst: 5 } as const;

function checkNumber(name: string, value: number | undefined, min: number, max: number, integer: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw new InvalidOptionError(
      name,
      `${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${String(value)}`,
    );
  }
}

/**
 * Replays every page of `db` through crawlite's own serve (127.0.0.1, a free port) in Chromium, holds
 * each against the screenshot and text stored at capture, counts the requests that failed, and stores a
 * score per page (the `qa` view). Checking a capture again replaces its score. Rejects with
 * BrowserMissingError when there is no Chromium, InvalidOptionError for a bad option.
 */
export async function qa(input: QaInput): Promise<QaReport> {
  if (typeof input !== 'object' || input === null || typeof input.db !== 'string')
    throw new InvalidOptionError('db', 'db must be the path of the archive file, e.g. "site.sqlite"');
  checkNumber('concurrency', input.concurrency, 1, 16, true);
  checkNumber('pageTimeoutMs', input.pageTimeoutMs, 1, 3_600_000, true);
  checkNumber('threshold', input.threshold, 0, 1, false);
  checkNumber('worst', input.worst, 0, 1000, true);
  const [{ resolveChromium }, { runQa }, { ArchiveFacts }] = await Promise.all([
    import('../browser/index.js'),
    import('../qa/index.js'),
    import('../storage/reader/index.js'),
  ]);
  // Before the archive is opened: a missing browser is said at once.
  const chromium = resolveChromium(input.chromium);
  const threshold = input.threshold ?? QA_DEFAULTS.threshold;
  const started = Date.now();
  const run = await runQa({
    path: input.db,
    chromium,
    concurrency: input.concurrency ?? QA_DEFAULTS.concurrency,
    pageTimeoutMs: input.pageTimeoutMs ?? QA_DEFAULTS.pageTimeoutMs,
    owner: input.owner ?? { pid: process.pid, host: hostname() },
    ...(input.onWait ? { onWait: input.onWait } : {}),
    ...(input.onProgress ? { onProgress: (done: number, total: number) => input.onProgress!({ done, total }) } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const archive = ArchiveFacts.open(input.db);
  try {
    const totals = archive.qaTotals(threshold, run.startedAt);
    return {
      archive: input.db,
      total: run.total,
      checked: run.checked,
      errors: run.errors,
      stopped: run.stopped,
      mean: totals.mean,
      median: totals.median,
      threshold,
      below: totals.below,
      worst: archive.worstQaRows(input.worst ?? QA_DEFAULTS.worst, 0, run.startedAt),
      ms: Date.now() - started,
    };
  } finally {
    archive.close();
  }
}
