import { startWorker } from '../run/worker-run.js';
import { formatFetch } from './fetch-log.js';
import { EXIT_INTERRUPTED, EXIT_OK, type CliIo } from './io.js';
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
  const worker = startWorker({
    connection: request.connection,
    dbPath: request.dbPath,
    ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
    leaseMs: request.leaseMs,
    name: request.name,
    userAgent: `crawlite/${io.version}`,
    owner: io.owner,
    onOutage: (error) => io.stderr(`crawlite: lost the connection to the frontier (${error instanceof Error ? error.message : String(error)}); retrying\n`),
    onFetch: (fetch) => {
      if (request.verbosity === 'verbose' || (request.verbosity === 'normal' && fetch.state === 'failed')) io.stderr(`${formatFetch(fetch)}\n`);
    },
  });
  const unlisten = io.onInterrupt(() => {
    say('stopping: finishing requests in flight; what is left goes back to the frontier');
    worker.stop();
  }, 'crawlite: stopped at once; the frontier gives this worker\'s URLs to others when their leases run out\n');
  try {
    const result = await worker.done;
    say(`${request.dbPath}: ${result.finished} URL${result.finished === 1 ? '' : 's'} finished by this worker`);
    if (result.endedBy === 'limit') say("stopped at the crawl's --max-pages; the rest stays queued in the frontier");
    return result.endedBy === 'interrupted' ? EXIT_INTERRUPTED : EXIT_OK;
  } finally {
    unlisten();
  }
}
