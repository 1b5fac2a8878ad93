import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_WORDS } from '../src/storage/query/search-limits.js';
import { tempDir } from './support/archive.js';
import { spawnCli, type CliRun } from './support/cli.js';
import { childPids, isRunning, killAll } from './support/process-tree.js';
import { prefixQuery, textArchive } from './support/text-archive.js';
import { sleep, waitFor, within } from './support/wait.js';

// `crawlite search` for many prefixes is one long SQLite step: Ctrl-C and --timeout
// stop it at once (it runs in a process that is killed), and a query longer than
// any a person types is refused before it runs.

const tmp = tempDir();
let db: string;
let tiny: string;
const children: ChildProcess[] = [];
/** Seconds of SQLite on 12,000 pages (2.5 s of CPU here, 4 s or more on a loaded 2-CPU machine), within the size limits. */
const SLOW = prefixQuery(MAX_SEARCH_WORDS);

beforeAll(() => {
  db = textArchive(tmp.path('text.sqlite'), 12_000);
  tiny = textArchive(tmp.path('tiny.sqlite'), 10);
}, 120_000);

// Not afterEach: the tests run at once, and one's cleanup would kill the others' children.
afterAll(() => {
  killAll(children);
  tmp.cleanup();
});

function start(argv: string[]) {
  const child = spawnCli(['search', ...argv]);
  children.push(child);
  return child;
}

const exitOf = (child: ReturnType<typeof spawnCli>, ms: number): Promise<CliRun> =>
  within(child.exited, ms, () => `the search (stderr so far: ${child.output().stderr})`);

const lines = (run: CliRun) => run.stderr.trimEnd().split('\n');

describe.concurrent('search stops', () => {
  it('on Ctrl-C (SIGINT) inside a long SQLite step: exit 130 at once, one line, no process left', async ({ expect }) => {
    const child = start([db, '--fts', SLOW]);
    // Running: its search process has started (a crawlite that searched on its own thread never starts one).
    await waitFor(
      'the search process to start',
      () => childPids(child.pid!).length > 0,
      15_000,
      () => child.output().stderr,
    );
    const workers = childPids(child.pid!);
    await sleep(300);
    expect(isRunning(child.pid!), child.output().stderr).toBe(true);
    child.kill('SIGINT');
    // Wide: the search alone takes seconds longer.
    const run = await exitOf(child, 3000);
    expect(lines(run)).toEqual(['crawlite: search interrupted']);
    expect(run.code).toBe(130);
    expect(run.stdout).toBe('');
    expect(workers).toHaveLength(1);
    await waitFor('the search process to be gone', () => !isRunning(workers[0]!), 20_000);
  });

  it('after --timeout 500: exit 1, one line saying it stopped and what to do', async ({ expect }) => {
    const run = await exitOf(start([db, '--fts', SLOW, '--timeout', '500']), 20_000);
    expect(lines(run)).toEqual(['crawlite: search stopped after 500 ms: narrow the query (or raise --timeout)']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
  });

  it('when search itself is killed (kill -9): its search process ends too', async ({ expect }) => {
    const child = start([db, '--fts', SLOW]);
    await waitFor(
      'the search process to start',
      () => childPids(child.pid!).length > 0,
      15_000,
      () => child.output().stderr,
    );
    const worker = childPids(child.pid!)[0]!;
    child.kill('SIGKILL');
    await child.exited;
    // Wide: its watch on the parent is a thread of its own, slow to start on a loaded machine.
    await waitFor('the orphaned search process to end', () => !isRunning(worker), 10_000);
    expect(isRunning(worker)).toBe(false);
  });

  it('refuses a query over the size limits (the 1,250 prefixes of a 13 KB URL with --fts, 65 words as typed) in one line, exit 1', async ({
    expect,
  }) => {
    const long = await exitOf(start([tiny, '--fts', prefixQuery(1250)]), 10_000);
    expect(lines(long)).toEqual(['crawlite: search query too long: 7,496 characters, at most 1,000; narrow it']);
    expect(long.code).toBe(1);
    const words = Array.from({ length: MAX_SEARCH_WORDS + 1 }, (_, i) => `word${i}`).join(' ');
    const many = await exitOf(start([tiny, words]), 10_000);
    expect(lines(many)).toEqual([`crawlite: search query too long: ${MAX_SEARCH_WORDS + 1} words, at most ${MAX_SEARCH_WORDS}; narrow it`]);
    expect(many.code).toBe(1);
    // At the limit it runs; OR, AND and NOT are not words.
    const most = await exitOf(
      start([tiny, '--fts', Array.from({ length: MAX_SEARCH_WORDS }, (_, i) => `word${i}`).join(' OR '), '-f', 'json']),
      10_000,
    );
    expect(most.stderr).toBe('');
    expect(most.code).toBe(0);
  });

  it('refuses a --timeout that is not a whole number of ms', async ({ expect }) => {
    const run = await exitOf(start([tiny, 'page', '--timeout', '1.5s']), 10_000);
    expect(lines(run)).toHaveLength(1);
    expect(lines(run)[0]).toMatch(/^crawlite: --timeout must be a whole number of milliseconds/);
    expect(run.code).toBe(1);
  });

  it('still finds pages, in its own process, within --timeout', async ({ expect }) => {
    const run = await exitOf(start([tiny, 'page', '-f', 'ndjson', '--limit', '3', '--timeout', '60000']), 20_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { title: string }).title),
    ).toHaveLength(3);
  });
});
