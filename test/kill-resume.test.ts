import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { replyAfter } from './support/delayed-reply.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { killAll } from './support/process-tree.js';
import { startServer, type Handler, type TestServer } from './support/test-server.js';
import { abs, pathOf } from './support/urls.js';
import { waitForHits } from './support/wait.js';

// A deterministic site of N pages: page i links to i+1, 2i, 3i (mod N) and the
// index, so everything is reachable from the index through the i+1 chain. Every
// answer is delayed, so a crawl at -c 4 takes a few seconds and can be killed
// in the middle.
const N = 150;
const DELAY_MS = 40;
const CONCURRENCY = 4;
const ALL_PATHS = sitePaths(N);

/** Serves the site; the delay is cancelled when the client goes away, so a killed crawler leaves no timers behind. */
const site: Handler = (req, res, path) => {
  let body: string | undefined;
  if (path === '/robots.txt') body = 'User-agent: *\nDisallow: /nowhere/\n';
  if (path === '/') body = `<!doctype html><html><body><h1>index</h1><a href="${pagePath(0)}">start</a></body></html>`;
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < N) body = linkedPage(Number(match[1]), N, pagePath);
  return replyAfter(res, { body, delayMs: DELAY_MS });
};

let server: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer(site);
});

afterEach(() => {
  killAll(children);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

interface Snapshot {
  /** URLs in `done` state. */
  done: Set<string>;
  /** URLs left `fetching` (in flight) by the killed process. */
  fetching: Set<string>;
  pages: string[];
  /** Server hit counts per path when the snapshot was taken. */
  hits: Map<string, number>;
}

/** What a killed crawl left behind, checked for the invariants a crash must keep. */
function checkAfterKill(db: string): Snapshot {
  expect(integrity(db)).toBe('ok');
  const doneWithoutPage = readArchive<{ url: string }>(
    db,
    "SELECT url FROM urls WHERE state = 'done' AND url NOT IN (SELECT url FROM pages)",
  );
  expect(doneWithoutPage).toEqual([]);
  const urls = readArchive<{ url: string; state: string }>(db, 'SELECT url, state FROM urls');
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => row.url);
  const snapshot: Snapshot = {
    done: new Set(urls.filter((row) => row.state === 'done').map((row) => row.url)),
    fetching: new Set(urls.filter((row) => row.state === 'fetching').map((row) => row.url)),
    pages,
    hits: new Map(server.hits),
  };
  // At most the cap of requests in flight, plus as many pages read and waiting to commit: at most 2 x CONCURRENCY
  // paths were requested and not committed. (`fetching` may also hold a few URLs claimed ahead and never requested.)
  const requestedNotStored = [...snapshot.hits.keys()].filter((path) => !snapshot.done.has(abs(server, path)));
  expect(requestedNotStored.length).toBeLessThanOrEqual(2 * CONCURRENCY);
  // Killed in the middle: some pages are archived, not all.
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.length).toBeLessThan(ALL_PATHS.length);
  // Every page this site serves is a 200 that ends `done`; nothing failed.
  expect(urls.filter((row) => row.state !== 'done' && row.state !== 'fetching' && row.state !== 'queued')).toEqual([]);
  // Every path the server was asked for is either committed or was in flight at the kill.
  for (const path of snapshot.hits.keys()) {
    const url = abs(server, path);
    expect(snapshot.done.has(url) || snapshot.fetching.has(url), `${path} was requested but is neither done nor fetching`).toBe(true);
  }
  return snapshot;
}

/** Spawns a crawl (or resume), lets it fetch `pages` more pages, then kills it with SIGKILL. */
async function killAfter(argv: string[], pages: number): Promise<void> {
  const before = server.totalHits();
  const child = spawnCli(argv);
  children.push(child);
  await waitForHits(server, before + pages, child, 60_000);
  expect(child.exitCode, 'the crawl ended before it could be killed').toBeNull();
  child.kill('SIGKILL');
  const run = await child.exited;
  expect(child.signalCode).toBe('SIGKILL');
  expect(run.code).toBe(137);
}

/** After the final resume: the archive is complete and nothing was fetched twice that was not in flight at a kill. */
async function checkComplete(db: string, snapshots: Snapshot[]): Promise<void> {
  expect(integrity(db)).toBe('ok');
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => row.url);
  // Every page exactly once.
  expect(pages.length).toBe(new Set(pages).size);
  expect(new Set(pages)).toEqual(new Set(ALL_PATHS.map((path) => abs(server, path))));
  const states = readArchive<{ state: string; n: number }>(db, 'SELECT state, count(*) AS n FROM urls GROUP BY state');
  expect(states).toEqual([{ state: 'done', n: ALL_PATHS.length }]);
  const statuses = readArchive<{ status: number; n: number }>(db, 'SELECT status, count(*) AS n FROM pages GROUP BY status');
  expect(statuses).toEqual([{ status: 200, n: ALL_PATHS.length }]);

  // The server was asked for the site's pages only, each at least once.
  expect(new Set(server.hits.keys())).toEqual(new Set(ALL_PATHS));
  for (const path of ALL_PATHS) expect(server.hitCount(path), path).toBeGreaterThanOrEqual(1);

  // Only URLs in flight at a kill are fetched again: a page committed before a kill is never re-fetched.
  for (const snapshot of snapshots) {
    for (const url of snapshot.done) {
      const path = pathOf(url);
      expect(server.hitCount(path), `${path} was done before the kill and fetched again`).toBe(snapshot.hits.get(path) ?? 0);
    }
  }
  // What was in flight at a kill was never stored, so the resume had to fetch it again.
  for (const snapshot of snapshots) {
    for (const url of snapshot.fetching) {
      const path = pathOf(url);
      const before = snapshot.hits.get(path) ?? 0;
      if (before > 0) expect(server.hitCount(path), `${path} was in flight at the kill and not fetched again`).toBeGreaterThan(before);
    }
  }
  const refetched = ALL_PATHS.filter((path) => server.hitCount(path) > 1);
  for (const path of refetched) {
    const inFlightAt = snapshots.filter((snapshot) => snapshot.fetching.has(abs(server, path))).length;
    expect(inFlightAt, `${path} fetched ${server.hitCount(path)} times but was never in flight at a kill`).toBeGreaterThan(0);
    expect(server.hitCount(path), path).toBeLessThanOrEqual(1 + inFlightAt);
  }
  expect(refetched.length).toBeLessThanOrEqual(2 * CONCURRENCY * snapshots.length);
}

it('resumes after kill -9 without losing or duplicating pages, re-fetching only what was in flight', async () => {
  server.hits.clear();
  const db = tmp.path('a.sqlite');

  await killAfter(['crawl', server.url, '--db', db, '-c', String(CONCURRENCY)], 40);
  const snapshot = checkAfterKill(db);

  const resumed = await execCli(['resume', db]);
  expect(resumed.stderr).toContain(`resuming ${db}`);
  if (snapshot.fetching.size > 0)
    expect(resumed.stderr).toContain(`${snapshot.fetching.size} left in flight by the last run are queued again`);
  expect(resumed.code, resumed.stderr).toBe(0);

  await checkComplete(db, [snapshot]);
  const refetched = ALL_PATHS.filter((path) => server.hitCount(path) > 1);
  expect(refetched.length).toBeLessThanOrEqual(2 * CONCURRENCY);
  for (const path of ALL_PATHS) expect(server.hitCount(path), path).toBeLessThanOrEqual(2);
}, 240_000);

it('survives two kill -9 / resume cycles in a row', async () => {
  server.hits.clear();
  const db = tmp.path('b.sqlite');

  await killAfter(['crawl', server.url, '--db', db, '-c', String(CONCURRENCY)], 40);
  const first = checkAfterKill(db);

  // The first resume is killed too, mid-way.
  await killAfter(['resume', db], 40);
  const second = checkAfterKill(db);
  expect(second.pages.length).toBeGreaterThan(first.pages.length);

  const resumed = await execCli(['resume', db]);
  expect(resumed.code, resumed.stderr).toBe(0);
  await checkComplete(db, [first, second]);

  // Three runs recorded in the archive, and its report agrees with the views.
  const stats = await execCli(['stats', db, '--json']);
  expect(stats.code, stats.stderr).toBe(0);
  const report = JSON.parse(stats.stdout) as { runs: number; pages: number; urls: { done: number; total: number } };
  expect(report.runs).toBe(3);
  expect(report.pages).toBe(ALL_PATHS.length);
  expect(report.urls).toMatchObject({ done: ALL_PATHS.length, total: ALL_PATHS.length });
}, 240_000);
