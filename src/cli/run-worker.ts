import { crawlWorker } from '../library/worker.js';
import { formatFetch } from './fetch-log.js';
import { formatNotice } from './format-notice.js';
import { FrontierTotals } from './frontier-totals.js';
import { EXIT_INTERRUPTED, EXIT_OK, type CliIo } from './io.js';
import { progressMode, ProgressDisplay } from './progress-display.js';
import type { Verbosity } from './run-crawl.js';

export interface WorkerCliRequest {
  connection: string | undefined;
  dbPath: string;
  concurrency?: number;
  leaseMs: number;
  name: string;
  verbosity: Verbosity;
}

/** `crawlite worker`: crawls from the shared frontier into its shard until the frontier is finished. */
export async function runWorker(request: WorkerCliRequest, io: CliIo): Promise<number> {
  const say = (line: string) => request.verbosity !== 'quiet' && io.stderr(`${line}\n`);
  const worker = crawlWorker({
    ...(request.connection ? { connection: request.connection } : {}),
    db: request.dbPath,
    ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
    leaseMs: request.leaseMs,
    name: request.name,
    userAgent: `crawlite/${io.version}`,
  });
  // The crawl's line, as `crawl` draws it: done, queued and failed over all workers; in flight, fetched and the rate this worker's.
  const mode = progressMode(request.verbosity === 'quiet', io.isTTY, io.statusStream);
  const totals = new FrontierTotals(() => worker.totals());
  const progress = await ProgressDisplay.create(
    mode,
    io.statusStream && mode === 'live' ? io.statusStream : { write: io.stderr },
    () => totals.current(),
    () => worker.inFlight(),
  );
  progress.start();
  worker.events.subscribe((event) => {
    if (event.type === 'notice') {
      const { notice } = event;
      if (notice.kind === 'frontier-lost')
        return progress.line(`crawlite: lost the connection to the frontier (${notice.reason}); retrying`);
      if (notice.kind === 'paused') progress.paused = notice.by === 'disk' ? 'paused (disk)' : 'paused';
      if (notice.kind === 'resumed') progress.paused = undefined;
      if (request.verbosity !== 'quiet' || notice.kind === 'paused')
        progress.line(formatNotice(notice, request.connection ?? 'postgres://'));
      return;
    }
    progress.count(event.report);
    if (request.verbosity === 'verbose' || (request.verbosity === 'normal' && event.type === 'failed'))
      progress.line(formatFetch(event.report));
  });
  const unlisten = io.onInterrupt(() => {
    if (request.verbosity !== 'quiet') progress.line('stopping: finishing requests in flight; what is left goes back to the frontier');
    worker.stop();
  }, "crawlite: stopped at once; the frontier gives this worker's URLs to others when their leases run out\n");
  let result: Awaited<typeof worker.done>;
  try {
    result = await worker.done;
  } finally {
    progress.stop();
    unlisten();
  }
  say(`${request.dbPath}: ${result.finished} URL${result.finished === 1 ? '' : 's'} finished by this worker`);
  if (result.endedBy === 'limit') say("stopped at the crawl's --max-pages; the rest stays queued in the frontier");
  return result.endedBy === 'interrupted' ? EXIT_INTERRUPTED : EXIT_OK;
}
