import { fork, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { BIN, spawnCli, type CliRun } from './support/cli.js';
import { childPids, isRunning, killAll } from './support/process-tree.js';
import { emptyArchive, ENDLESS_COUNT, ENDLESS_ROWS } from './support/query-archive.js';
import { sleep, waitFor, within } from './support/wait.js';

// A statement that never returns to JavaScript (one endless SQLite step) must
// still stop on Ctrl-C, SIGTERM, --timeout, a closed pipe, or its parent dying.

const tmp = tempDir();
const db = emptyArchive(tmp.path('empty.sqlite'));
const children: ChildProcess[] = [];

// Not afterEach: the tests run at once, and one's cleanup would kill the others' children.
afterAll(() => {
  killAll(children);
  tmp.cleanup();
});

/** Starts `query` and waits until the statement runs (its worker process exists), then ~300 ms more. */
async function startRunning(argv: string[]) {
  const child = spawnCli(['query', db, ...argv]);
  children.push(child);
  let worker: number | undefined;
  await waitFor(
    'the query worker to start',
    () => (worker = childPids(child.pid!)[0]) !== undefined,
    30_000,
    () => child.output().stderr,
  );
  await sleep(300);
  expect(isRunning(child.pid!), child.output().stderr).toBe(true);
  return { child, worker: worker! };
}

/**
 * How long a stop may take: the statements here never end by themselves, so any bound tells a stop from none;
 * a stop takes well under a second on a quiet machine, and this leaves room for a loaded one.
 */
const STOP_MS = 20_000;

/** The exit within `ms`, or a failure that says what the child printed. */
const exitOf = (child: ReturnType<typeof spawnCli>, ms: number): Promise<CliRun> =>
  within(child.exited, ms, () => `the query (stderr so far: ${child.output().stderr})`);

const oneLine = (run: CliRun) => run.stderr.trimEnd().split('\n');

describe.concurrent('query stops', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} inside an endless SQLite step: exit 130, one line, no worker left`, async ({ expect }) => {
      const { child, worker } = await startRunning([ENDLESS_COUNT]);
      child.kill(signal);
      const run = await exitOf(child, STOP_MS);
      expect(run.code, run.stderr).toBe(130);
      expect(oneLine(run)).toEqual(['crawlite: query interrupted']);
      expect(run.stdout).toBe('');
      await waitFor('the worker to be gone', () => !isRunning(worker), STOP_MS);
    });
  }

  it('on Ctrl-C in a terminal (SIGINT to the whole process group, the worker too): exit 130, one line', async ({ expect }) => {
    // A process group of its own, as a shell gives a foreground job.
    const child = spawn(process.execPath, [BIN, 'query', db, ENDLESS_COUNT], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    await waitFor(
      'the query worker to start',
      () => childPids(child.pid!).length > 0,
      30_000,
      () => stderr,
    );
    const worker = childPids(child.pid!)[0]!;
    await sleep(300);
    process.kill(-child.pid!, 'SIGINT');
    expect(await within(code, STOP_MS, () => `the query (stderr so far: ${stderr})`)).toBe(130);
    expect(stderr).toBe('crawlite: query interrupted\n');
    await waitFor('the worker to be gone', () => !isRunning(worker), STOP_MS);
  });

  it('after --timeout 500 ms: exit 1, one line saying so', async ({ expect }) => {
    const child = spawnCli(['query', db, ENDLESS_COUNT, '--timeout', '500']);
    children.push(child);
    const started = Date.now();
    const run = await exitOf(child, 30_000);
    expect(run.code, run.stderr).toBe(1);
    expect(oneLine(run)).toHaveLength(1);
    expect(oneLine(run)[0]).toMatch(/^crawlite: query timed out after 500 ms/);
    expect(run.stdout).toBe('');
    // Startup (a second or so on a loaded machine) plus the 500 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('refuses a --timeout that is not a whole number of ms', async ({ expect }) => {
    const run = await spawnCli(['query', db, 'select 1', '--timeout', '1.5s']).exited;
    expect(run.code).toBe(1);
    expect(oneLine(run)).toHaveLength(1);
    expect(oneLine(run)[0]).toMatch(/--timeout must be a whole number of milliseconds/);
  });

  it('quietly, exit 0, when the reader of its output goes away (| head)', async ({ expect }) => {
    const child = spawnCli(['query', db, ENDLESS_ROWS, '-f', 'ndjson']);
    children.push(child);
    await waitFor(
      'the first rows',
      () => child.output().stdout.includes('{"x":3}\n'),
      30_000,
      () => child.output().stderr,
    );
    child.stdout!.destroy();
    const run = await exitOf(child, STOP_MS);
    expect(run.stdout.startsWith('{"x":1}\n{"x":2}\n{"x":3}\n')).toBe(true);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('when query dies before its worker has started watching: the worker checks the pid query gave it', async ({ expect }) => {
    // A worker whose named parent is not its parent any more: as after `query` was killed while the worker
    // was still loading, when the worker's own parent is already the one that adopted it.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    const worker = fork(fileURLToPath(new URL('../dist/storage/query/query-worker.js', import.meta.url)), [String(gone.pid)], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    children.push(worker);
    worker.send({ type: 'run', path: db, sql: ENDLESS_COUNT });
    await waitFor('the worker whose parent is gone to end', () => !isRunning(worker.pid!), STOP_MS);
    expect(isRunning(worker.pid!)).toBe(false);
  });

  it('when query itself is killed (kill -9): its worker ends too', async ({ expect }) => {
    const { child, worker } = await startRunning([ENDLESS_COUNT]);
    child.kill('SIGKILL');
    await child.exited;
    await waitFor('the orphaned worker to end', () => !isRunning(worker), STOP_MS);
    expect(isRunning(worker)).toBe(false);
  });
});
