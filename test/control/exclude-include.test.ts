import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { spawnCli } from '../support/cli.js';
import { control, startControlSite, urlCount, type ControlSite } from '../support/control-site.js';
import { killAll } from '../support/process-tree.js';
import { waitFor, within } from '../support/wait.js';

// A trap found while the crawl runs (every page links to its own ?id= anchors) is excluded from a second
// process: the queued URLs matching it are skipped at once, in one transaction, with their own reason, and
// none of them is requested afterwards; those found later are skipped as found. Taking the exclusion away
// queues again what it skipped, and the crawl fetches them.

const PAGES = 20;
const TRAP = 10;
let site: ControlSite;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  site = await startControlSite({ pages: PAGES, trap: TRAP, delayMs: 60 });
});
afterEach(() => killAll(children));
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

const trapRequests = (from = 0) => site.log.slice(from).filter((path) => path.startsWith('/doc?'));

it('prunes the queue of a running crawl with a live exclusion, and queues it again when the exclusion is taken away', async () => {
  const db = tmp.path('trap.sqlite');
  const crawl = spawnCli(['crawl', site.url, '--db', db, '-c', '2', '--ignore-robots']);
  children.push(crawl);
  await waitFor(
    'trap URLs to be queued',
    // Pages fetched, so the archive is made: its queue can be read.
    () => site.log.length > 3 && urlCount(db, 'queued') >= 3 * TRAP,
    20_000,
    () => crawl.output().stderr,
  );

  const excluded = await control(db, 'exclude', '^[^?]*/doc\\?id=');
  expect(excluded.code, excluded.stderr).toBe(0);
  const pruned = Number(/^excluded: (\d+) queued URLs skipped\n$/.exec(excluded.stdout)?.[1]);
  expect(pruned).toBeGreaterThanOrEqual(2 * TRAP);
  // Answered means applied: from here on no trap URL is requested (claims taken ahead are checked again).
  const after = site.log.length;
  const end = await within(crawl.exited, 40_000, () => `the crawl (${crawl.output().stderr})`);
  expect(end.code).toBe(0);
  expect(trapRequests(after)).toEqual([]);
  const skipped = readArchive<{ n: number; error: string }>(
    db,
    "SELECT count(*) AS n, error FROM url WHERE state = 'skipped' AND error_code = 'excluded_live' GROUP BY error",
  );
  expect(skipped).toEqual([{ n: PAGES * TRAP - trapRequests().length, error: 'matches live exclusion ^[^?]*/doc\\?id=' }]);
  expect(skipped[0]!.n).toBeGreaterThan(pruned);
  expect(urlCount(db, 'queued')).toBe(0);

  // No crawl runs: include waits for the next run, which queues the skipped URLs again and fetches them.
  expect(await control(db, 'include', '^[^?]*/doc\\?id=')).toMatchObject({
    code: 0,
    stdout: expect.stringMatching(/^no crawl is running/),
  });
  const before = trapRequests().length;
  const resumed = spawnCli(['resume', db]);
  children.push(resumed);
  expect((await within(resumed.exited, 40_000, () => `the resume (${resumed.output().stderr})`)).code).toBe(0);
  expect(urlCount(db, 'skipped')).toBe(0);
  expect(trapRequests().length - before).toBe(skipped[0]!.n);
  const outcome = readArchive<{ outcome: string }>(db, "SELECT outcome FROM control_request WHERE command = 'include'")[0]!.outcome;
  expect(outcome).toBe(`included: ${skipped[0]!.n} URLs queued again`);
});

it('queues again, in the running crawl, what a live exclusion skipped when it is taken away', async () => {
  const db = tmp.path('include-live.sqlite');
  const crawl = spawnCli(['crawl', site.url, '--db', db, '-c', '2', '--ignore-robots']);
  children.push(crawl);
  await waitFor(
    'trap URLs to be queued',
    () => site.log.length > 3 && urlCount(db, 'queued') >= 2 * TRAP,
    20_000,
    () => crawl.output().stderr,
  );
  expect(await control(db, 'pause')).toMatchObject({ code: 0, stdout: 'paused\n' });
  const pattern = '/doc\\?id=';
  const excluded = await control(db, 'exclude', pattern);
  const pruned = Number(/^excluded: (\d+) queued URLs skipped\n$/.exec(excluded.stdout)?.[1]);
  expect(pruned).toBeGreaterThanOrEqual(2 * TRAP);
  expect(await control(db, 'include', pattern)).toMatchObject({ code: 0, stdout: `included: ${pruned} URLs queued again\n` });
  expect(urlCount(db, 'skipped')).toBe(0);
  expect(await control(db, 'resume')).toMatchObject({ code: 0, stdout: 'running\n' });
  const end = await within(crawl.exited, 40_000, () => `the crawl (${crawl.output().stderr})`);
  expect(end.code).toBe(0);
  expect(urlCount(db, 'done')).toBe(1 + PAGES + PAGES * TRAP);
  expect(urlCount(db, 'skipped')).toBe(0);
});
