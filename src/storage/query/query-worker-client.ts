import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CrawliteError } from '../../crawlite-error.js';
import { QueryRefusedError } from '../archive/archive-errors.js';
import { openArchive } from '../reader/archive-reader.js';
import type { QueryParams } from '../reader/reader-types.js';
import type { FromWorker, RunShape, ToWorker, WorkerTask } from './query-worker-protocol.js';

export class QueryTimeoutError extends CrawliteError {
  constructor(readonly timeoutMs: number) {
    super('QUERY_TIMEOUT', `query timed out after ${timeoutMs} ms (raise --timeout, or narrow the query)`);
  }
}

/** The process running the statement ended without finishing it (killed from outside, out of memory). */
export class QueryWorkerError extends CrawliteError {
  constructor(how: string, what: 'query' | 'search' | 'diff' | 'preview' | 'live' = 'query') {
    super('QUERY_WORKER', `${what} stopped: the process running it ${how}`);
  }
}

/** Where the rows go. `rows` (or `text`, for a query run with `encode`) resolves when it can take the next batch (the output has drained). */
export interface RowSink {
  columns(columns: string[]): void;
  rows(rows: unknown[][]): Promise<void> | void;
  /** A piece of the document a query run with `encode` makes. */
  text?(text: string): Promise<void> | void;
}

export type { RunShape };

export interface RunningQuery {
  /** 'done' once every row went to the sink, 'stopped' after stop(); rejects on failure or timeout. */
  finished: Promise<'done' | 'stopped'>;
  /** Kills the statement wherever it is, even inside one endless SQLite step. */
  stop(): void;
  /** Resolves once the process running it has ended (after `finished`, when it was killed). */
  exited: Promise<void>;
}

// From sources (the tests' in-process CLI) the worker is the compiled one: Node runs only JavaScript in a child.
const WORKER = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../../dist/storage/query/query-worker.js', import.meta.url)
    : new URL('./query-worker.js', import.meta.url),
);

/**
 * Runs one read-only statement in a child process and streams its rows to
 * `sink` in batches, one batch ahead of the sink at most. Refusals (bad SQL, a
 * write, ATTACH, a file that is not an archive) are thrown here, before any
 * process starts; `timeoutMs` bounds the whole run; `params` are bound in the worker.
 */
export function startQuery(
  path: string,
  sql: string,
  sink: RowSink,
  options: { timeoutMs?: number; params?: QueryParams } & RunShape = {},
): RunningQuery {
  const archive = openArchive(path);
  try {
    archive.query(sql);
  } finally {
    archive.close();
  }
  const { timeoutMs, params, cellChars, encode } = options;
  const task: WorkerTask = {
    type: 'run',
    path,
    sql,
    ...(params !== undefined ? { params } : {}),
    ...(cellChars !== undefined ? { cellChars } : {}),
    ...(encode ? { encode } : {}),
  };
  return startWorker(task, sink, {
    ...(timeoutMs !== undefined ? { timeout: { ms: timeoutMs, error: () => new QueryTimeoutError(timeoutMs) } } : {}),
    failed: (message) => new QueryRefusedError(message),
  });
}

export interface WorkerLimits {
  /** After `ms` the worker is killed and `finished` rejects with `error()`. */
  timeout?: { ms: number; error: () => Error };
  /** The error for the worker's `error` message (its CrawliteError's words and code). */
  failed: (message: string, code: string | undefined) => Error;
}

/**
 * Runs `task` in a child process that is killed (SIGKILL) on stop(), on timeout,
 * or when the sink throws: a SQLite step cannot be interrupted any other way.
 */
export function startWorker(task: WorkerTask, sink: RowSink, limits: WorkerLimits): RunningQuery {
  // The worker is told who its parent is: if this process dies before the worker starts, its ppid is already another.
  const child = fork(WORKER, [String(process.pid)], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
    execArgv: [],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const send = (message: ToWorker) => {
    if (child.connected) child.send(message);
  };
  let settle!: (end: 'done' | 'stopped') => void;
  let fail!: (error: unknown) => void;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const finished = new Promise<'done' | 'stopped'>((resolve, reject) => {
    const end = (after: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.connected) child.disconnect();
      after();
    };
    settle = (how) => end(() => resolve(how));
    fail = (error) =>
      end(() => {
        child.kill('SIGKILL');
        reject(error);
      });
  });
  const { timeout } = limits;
  if (timeout) timer = setTimeout(() => fail(timeout.error()), timeout.ms);

  // Messages are handled one after another: a batch waits for the sink before the next is looked at.
  let chain = Promise.resolve();
  const then = (step: () => Promise<void> | void) => {
    chain = chain.then(() => (settled ? undefined : step())).catch(fail);
  };
  child.on('message', (message: FromWorker) =>
    then(async () => {
      switch (message.type) {
        case 'columns':
          return sink.columns(message.columns);
        case 'rows':
          await sink.rows(message.rows);
          return send({ type: 'ack' });
        case 'text':
          await sink.text?.(message.text);
          return send({ type: 'ack' });
        case 'done':
          return settle('done');
        case 'error':
          return fail(limits.failed(message.message, message.code));
      }
    }),
  );
  child.on('error', fail);
  child.on('close', (code, signal) =>
    then(() =>
      fail(new QueryWorkerError(signal ? `was killed (${signal})` : `exited with code ${code}`, task.type === 'run' ? 'query' : task.type)),
    ),
  );
  send(task);

  return {
    finished,
    exited,
    stop() {
      if (settled) return;
      child.kill('SIGKILL');
      settle('stopped');
    },
  };
}
