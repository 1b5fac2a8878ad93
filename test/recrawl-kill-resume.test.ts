import { createHash } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { copyArchive } from './support/copy-archive.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { killAll } from './support/process-tree.js';
import { startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';
import { waitForHits } from './support/wait.js';

// A slow site of N pages crawled once, then changed: every 7th page has new content, and most pages carry
// an ETag, so the re-crawl meets 200s, 304s and unconditional 200s. The re-crawl is killed with SIGKILL in
// the middle and resumed; it must end as an uninterrupted re-crawl of the same archive does.
const N = 120;
const DELAY_MS = 30;
const CONCURRENCY = 4;
const PATHS = sitePaths(N);

function answer(path: string, version: number): Served | undefined {
  let body: string | undefined;
  let i = -1;
  if (path === '/robots.txt') body = 'User-agent: *\nDisallow: /nowhere/\n';
  if (path === '/') body = `<!doctype html><html><body><a href="${pagePath(0)}">start</a></body></html>`;
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < N) {
    i = Number(match[1]);
    body = linkedPage(i, N, pagePath, version > 1 && i % 7 === 0 ? 'changed page' : 'page');
  }
  if (body === undefined) return undefined;
  // Every fifth page sends no validator: the server is asked in full and answers in full.
  return i % 5 === 4 ? { body } : { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` };
}

const site = new ChangingSite(answer, DELAY_MS);
let server: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer(site.handle);
});

afterEach(() => {
  killAll(children);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

/** What a finished re-crawl leaves: the latest capture of each URL, what changed, how many captures each URL has. */
function finalState(db: string) {
  const pages = readArchive<{ url: string; sha256: string; status: number; revalidated: number; crawl: number }>(
    db,
    'SELECT url, sha256, status, revalidated, crawl FROM pages ORDER BY url',
  ).map((row) => ({ ...row, url: new URL(row.url).pathname }));
  const changes = readArchive<{ url: string; change: string }>(db, 'SELECT url, change FROM changes ORDER BY url').map((row) => ({
    ...row,
    url: new URL(row.url).pathname,
  }));
  const captures = readArchive<{ url: string; n: number; crawls: string }>(
    db,
    'SELECT url, count(*) AS n, group_concat(DISTINCT crawl) AS crawls FROM captures GROUP BY url ORDER BY url',
  ).map((row) => ({ ...row, url: new URL(row.url).pathname }));
  const states = readArchive(db, 'SELECT state, crawl, count(*) AS n FROM url GROUP BY state, crawl');
  return { pages, changes, captures, states };
}

it('a re-crawl killed with SIGKILL and resumed ends as an uninterrupted one, fetching again only what was in flight', async () => {
  const crawled = tmp.path('crawled.sqlite');
  site.version = 1;
  const first = await execCli(['crawl', server.url, '--db', crawled, '-c', String(CONCURRENCY), '-q']);
  expect(first.code, first.stderr).toBe(0);
  const killed = tmp.path('killed.sqlite');
  const whole = tmp.path('whole.sqlite');
  copyArchive(crawled, killed);
  copyArchive(crawled, whole);
  site.version = 2;

  const uninterrupted = await execCli(['recrawl', whole, '-q']);
  expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
  const expected = finalState(whole);
  // The site as the test means it: changed, unchanged by 304 and by digest, all in crawl 2.
  const kinds = new Set(expected.changes.map((row) => row.change));
  expect(kinds).toEqual(new Set(['changed', 'unchanged']));
  expect(expected.pages.filter((row) => row.revalidated === 1).length).toBeGreaterThan(N / 2);
  expect(expected.captures.every((row) => row.n === 2 && row.crawls === '1,2')).toBe(true);

  server.hits.clear();
  const child = spawnCli(['recrawl', killed, '-c', String(CONCURRENCY)]);
  children.push(child);
  await waitForHits(server, 40, child, 60_000);
  expect(child.exitCode, 'the re-crawl ended before it could be killed').toBeNull();
  child.kill('SIGKILL');
  await child.exited;
  expect(child.signalCode).toBe('SIGKILL');

  expect(integrity(killed)).toBe('ok');
  const atKill = new Map(server.hits);
  const fetching = new Set(
    readArchive<{ url: string }>(killed, "SELECT url FROM urls WHERE state = 'fetching'").map((row) => new URL(row.url).pathname),
  );
  const doneInCrawl2 = new Set(
    readArchive<{ url: string }>(killed, "SELECT url FROM url WHERE state = 'done' AND crawl = 2").map((row) => new URL(row.url).pathname),
  );
  // Killed in the middle: some URLs captured again, not all.
  expect(doneInCrawl2.size).toBeGreaterThan(0);
  expect(doneInCrawl2.size).toBeLessThan(PATHS.length);

  const resumed = await execCli(['resume', killed]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`resuming ${killed}`);

  expect(integrity(killed)).toBe('ok');
  expect(finalState(killed)).toEqual(expected);
  // Its runs: the first crawl, then the re-crawl and its resume, both of crawl 2.
  expect(readArchive(killed, 'SELECT crawl FROM run ORDER BY id')).toEqual([{ crawl: 1 }, { crawl: 2 }, { crawl: 2 }]);

  // Every URL asked for once in the re-crawl, twice only if it was in flight at the kill.
  for (const path of PATHS) {
    const hits = server.hitCount(path);
    expect(hits, path).toBeGreaterThanOrEqual(1);
    expect(hits, path).toBeLessThanOrEqual(2);
    if (hits === 2) expect(fetching.has(path), `${path} fetched twice but not in flight at the kill`).toBe(true);
    if (doneInCrawl2.has(path)) expect(hits, `${path} was captured before the kill and fetched again`).toBe(atKill.get(path));
  }
  expect(new Set(server.hits.keys())).toEqual(new Set(PATHS));
}, 240_000);
