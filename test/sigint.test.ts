import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { replyAfter } from './support/delayed-reply.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { killAll } from './support/process-tree.js';
import { startServer, type Handler, type TestServer } from './support/test-server.js';
import { abs, pathOf } from './support/urls.js';
import { exitWithin, waitFor } from './support/wait.js';

// A deterministic site of N pages: page i links to i+1, 2i, 3i (mod N) and the
// index, so everything is reachable from the index through the i+1 chain. Every
// answer is delayed, so a crawl at -c 4 takes a few seconds and can be stopped
// in the middle.
const N = 150;
const DELAY_MS = 40;
const CONCURRENCY = 4;
const ALL_PATHS = sitePaths(N);
/** Answers only after a minute (or when the client goes away) while `hang.on` is set. */
const HANG_PATH = pagePath(20);
const HANG_MS = 60_000;
const hang = { on: false, waiting: 0 };

/** Serves the site; a delay is cancelled when the client goes away, so a dead crawler leaves no timers behind. */
const site: Handler = (_req, res, path) => {
  let body: string | undefined;
  if (path === '/robots.txt') body = 'User-agent: *\nDisallow: /nowhere/\n';
  if (path === '/') body = `<!doctype html><html><body><h1>index</h1><a href="${pagePath(0)}">start</a></body></html>`;
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < N) body = linkedPage(Number(match[1]), N, pagePath);
  const hangs = hang.on && path === HANG_PATH;
  return replyAfter(res, {
    body,
    delayMs: hangs ? HANG_MS : DELAY_MS,
    onWait: () => hangs && (hang.waiting += 1),
    onSettle: () => hangs && (hang.waiting -= 1),
  });
};

let server: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer(site);
});

afterEach(() => {
  hang.on = false;
  killAll(children);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

function start(argv: string[]) {
  const child = spawnCli(argv);
  children.push(child);
  return child;
}

/** Checks the archive a stopped crawl left: intact, partial, nothing `done` without its page. */
function checkPartial(db: string): { pages: string[]; hits: Map<string, number> } {
  expect(integrity(db)).toBe('ok');
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => row.url);
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.length).toBeLessThan(ALL_PATHS.length);
  const doneWithoutPage = readArchive<{ url: string }>(
    db,
    "SELECT url FROM urls WHERE state = 'done' AND url NOT IN (SELECT url FROM pages)",
  );
  expect(doneWithoutPage).toEqual([]);
  return { pages, hits: new Map(server.hits) };
}

/** After the resume: every page exactly once, all URLs done, and only in-flight ones fetched twice. */
function checkComplete(db: string, before: { pages: string[]; hits: Map<string, number> }): void {
  expect(integrity(db)).toBe('ok');
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => row.url);
  expect(pages.length).toBe(new Set(pages).size);
  expect(new Set(pages)).toEqual(new Set(ALL_PATHS.map((path) => abs(server, path))));
  const states = readArchive<{ state: string; n: number }>(db, 'SELECT state, count(*) AS n FROM urls GROUP BY state');
  expect(states).toEqual([{ state: 'done', n: ALL_PATHS.length }]);
  expect(new Set(server.hits.keys())).toEqual(new Set(ALL_PATHS));
  for (const path of ALL_PATHS) {
    expect(server.hitCount(path), path).toBeGreaterThanOrEqual(1);
    expect(server.hitCount(path), path).toBeLessThanOrEqual(2);
  }
  expect(ALL_PATHS.filter((path) => server.hitCount(path) > 1).length).toBeLessThanOrEqual(CONCURRENCY);
  // A page stored before the stop is never fetched again.
  for (const url of before.pages) {
    const path = pathOf(url);
    expect(server.hitCount(path), `${path} was stored before the stop and fetched again`).toBe(before.hits.get(path) ?? 0);
  }
}

async function gracefulStop(signal: 'SIGINT' | 'SIGTERM', name: string): Promise<void> {
  server.hits.clear();
  const db = tmp.path(name);
  const child = start(['crawl', server.url, '--db', db, '-c', String(CONCURRENCY)]);
  await waitFor('30 pages fetched', () => server.totalHits() >= 30);
  expect(child.exitCode, 'the crawl ended before the signal').toBeNull();

  child.kill(signal);
  // Requests in flight answer in 40 ms: the stop takes well under a second on a quiet machine, and the grace period is 5 s.
  const run = await exitWithin(child.exited, 20_000);
  expect(run, `no exit within 20 s of ${signal}`).not.toBeNull();
  expect(run!.code, run!.stderr).toBe(130);
  // The partial report of this run, and how to go on.
  expect(run!.stdout).toContain(`Archive   ${db}`);
  expect(run!.stdout).toContain('URLs');
  expect(run!.stdout).toContain('done');
  expect(run!.stderr).toContain('stopping');
  expect(run!.stderr).toContain(`crawlite resume ${db}`);

  const before = checkPartial(db);
  // A graceful stop lets requests in flight finish (or puts them back): nothing is left `fetching`.
  const fetching = readArchive<{ url: string }>(db, "SELECT url FROM urls WHERE state = 'fetching'");
  expect(fetching).toEqual([]);
  // Requests in flight at the signal answer in 40 ms, far within the grace period: each one was stored.
  for (const path of before.hits.keys())
    expect(before.pages, `${path} was fetched before the stop but not stored`).toContain(abs(server, path));

  const resumed = await execCli(['resume', db]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`resuming ${db}`);
  checkComplete(db, before);
}

it('stops gracefully on SIGINT: exit 130, partial report, intact archive that resume completes', async () => {
  await gracefulStop('SIGINT', 'int.sqlite');
});

it('stops the same way on SIGTERM', async () => {
  await gracefulStop('SIGTERM', 'term.sqlite');
});

it('quits at once on a second SIGINT even while a request hangs, and resume still works', async () => {
  server.hits.clear();
  hang.on = true;
  const db = tmp.path('twice.sqlite');
  const child = start(['crawl', server.url, '--db', db, '-c', String(CONCURRENCY), '--timeout', String(HANG_MS)]);
  await waitFor(`a request for ${HANG_PATH} hanging`, () => hang.waiting > 0 && server.totalHits() >= 30);
  expect(child.exitCode, 'the crawl ended before the signal').toBeNull();

  child.kill('SIGINT');
  // The first SIGINT waits for the hanging request (up to the grace period): still running, and says so at once.
  expect(await exitWithin(child.exited, 500), 'exited on the first SIGINT while a request was in flight').toBeNull();
  expect(hang.waiting).toBe(1);
  const stopping = /^stopping: finishing [1-4] requests? in flight \(Ctrl-C again to quit now; resume continues\)$/m;
  await waitFor(
    'the line saying the crawl is stopping',
    () => stopping.test(child.output().stderr),
    20_000,
    () => child.output().stderr,
  );

  child.kill('SIGINT');
  // Bounded far short of the hanging request's --timeout (60 s); that it did not wait for the 5 s grace period
  // is told by the last line below, which only the second Ctrl-C prints, however long a busy machine took.
  const run = await exitWithin(child.exited, 20_000);
  expect(run, 'no exit within 20 s of the second SIGINT').not.toBeNull();
  expect(run!.code, run!.stderr).toBe(130);
  expect(run!.stderr).toContain('stopping');
  // The last line says how to go on, and that the crawl quit at once.
  expect(run!.stderr.trimEnd().split('\n').at(-1)).toBe(`crawlite: stopped at once; continue with: crawlite resume ${db}`);

  const before = checkPartial(db);
  expect(before.pages).not.toContain(abs(server, HANG_PATH));
  expect(server.hitCount(HANG_PATH)).toBe(1);

  // The hanging page answers normally now; the resume fetches it again and finishes the crawl.
  hang.on = false;
  const resumed = await execCli(['resume', db]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/left in flight by the last run are queued again/);
  checkComplete(db, before);
  expect(server.hitCount(HANG_PATH)).toBe(2);
});
