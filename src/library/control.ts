import { setTimeout as sleep } from 'node:timers/promises';
import type { NameOption } from '../pipeline/validate-crawl-options.js';
import { checkControlRequest, type ControlRequest } from '../pipeline/control-request.js';
import { ControlClient, type ControlStatus } from '../storage/control/index.js';

export type { ControlRequest } from '../pipeline/control-request.js';
export type { ControlStatus, LiveRow, RequestRow, StoredControls } from '../storage/control/index.js';
export { ControlUnavailableError } from '../storage/control/index.js';

/** How long `controlCrawl` waits for the crawl to apply a request, unless told otherwise. */
export const CONTROL_WAIT_MS = 10_000;
const POLL_MS = 100;

export interface ControlInput {
  /** The archive a crawl runs on (or will). */
  db: string;
  request: ControlRequest;
  /** Wait for the crawl to apply it (default true), at most `waitMs`. */
  wait?: boolean;
  waitMs?: number;
  /** Who asks: the command line (default) or serve's live page. */
  requestedBy?: 'control' | 'serve';
  /** How settings are named in messages (`--per-host` on the command line). */
  name?: NameOption;
}

/**
 * What came of a request: `applied` (with the crawl's outcome), `sent` (not waited for), `no-crawl` (no
 * crawl runs now: it applies when the crawl next runs), or `timeout` (a crawl runs and had not applied it
 * in time: it still will).
 */
export interface ControlAnswer {
  id: number;
  state: 'applied' | 'sent' | 'no-crawl' | 'timeout';
  outcome?: string;
}

/** Checks a request as the crawl would (InvalidOptionError, or an invalid pattern's error); writes nothing. */
export function checkControl(request: ControlRequest, name?: NameOption): void {
  checkControlRequest(request, name);
}

/**
 * Asks the crawl running on an archive to pause, resume, stop, change its pace or its exclusions: the
 * request is checked first (nothing is written if it is wrong), appended to the archive, and applied by the
 * crawl within about a second. Nothing else of the archive is written.
 */
export async function controlCrawl(input: ControlInput): Promise<ControlAnswer> {
  checkControlRequest(input.request, input.name);
  if (isFrontier(input.db)) return controlWorkers(input);
  const client = ControlClient.open(input.db);
  try {
    // A stop has nothing to stop when no crawl runs: it is not left for the next run to stop at once.
    if (input.request.command === 'stop' && !client.live().running) return { id: 0, state: 'no-crawl' };
    const id = client.request(input.request, input.requestedBy ?? 'control');
    if (!client.live().running) return { id, state: 'no-crawl' };
    if (input.wait === false) return { id, state: 'sent' };
    const deadline = Date.now() + (input.waitMs ?? CONTROL_WAIT_MS);
    for (;;) {
      const answer = client.answer(id);
      if (answer) return { id, state: 'applied', outcome: answer.outcome };
      // A crawl that ended meanwhile leaves the request to the next run.
      if (!client.live().running) return { id, state: 'no-crawl' };
      if (Date.now() >= deadline) return { id, state: 'timeout' };
      await sleep(POLL_MS);
    }
  } finally {
    client.close();
  }
}

/** A target named by a PostgreSQL connection string is a shared frontier's workers, anything else an archive file. */
export const isFrontier = (target: string): boolean => /^postgres(ql)?:\/\//.test(target);

/** The same for the workers of a shared frontier: one of them applies the request, every one follows it within a few seconds. */
async function controlWorkers(input: ControlInput): Promise<ControlAnswer> {
  const { connectFrontier } = await import('../pg/pg-connect.js');
  const { checkControlTables, controlAnswer, requestControl, workersSeen } = await import('../pg/pg-control.js');
  const pool = await connectFrontier(input.db, 1);
  try {
    await checkControlTables(pool, input.db);
    const running = (await workersSeen(pool)) > 0;
    if (input.request.command === 'stop' && !running) return { id: 0, state: 'no-crawl' };
    const id = await requestControl(pool, input.request, input.requestedBy ?? 'control');
    if (!running) return { id, state: 'no-crawl' };
    if (input.wait === false) return { id, state: 'sent' };
    const deadline = Date.now() + (input.waitMs ?? CONTROL_WAIT_MS);
    for (;;) {
      const outcome = await controlAnswer(pool, id);
      if (outcome !== undefined) return { id, state: 'applied', outcome };
      if (Date.now() >= deadline) return { id, state: 'timeout' };
      await sleep(POLL_MS);
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** How the crawl on an archive stands: its live row, settings, exclusions, queue and latest requests. */
export function controlStatus(db: string): ControlStatus {
  const client = ControlClient.open(db);
  try {
    return client.status();
  } finally {
    client.close();
  }
}
