import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { linkedPage, pagePath } from './support/linked-site.js';
import { killAll } from './support/process-tree.js';
import { startServer, type TestServer } from './support/test-server.js';
import { waitFor, within } from './support/wait.js';

// Two overlapping shards merged one URL per transaction, slowed by a pause after each, so the merge
// can be killed with SIGKILL part-way; run again, it must end as an uninterrupted merge does.
const N = 60;

let server: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];
const shardA = tmp.path('a.sqlite');
const shardB = tmp.path('b.sqlite');

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    if (path === '/robots.txt') return res.end('User-agent: *\n');
    const links = Array.from({ length: N }, (_, i) => `<a href="${pagePath(i)}">${i}</a>`).join(' ');
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>index</title>${links}`);
    const match = /^\/p\/(\d+)$/.exec(path);
    if (match && Number(match[1]) < N)
      return res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(Number(match[1]), N, pagePath));
    return res.writeHead(404).end('not found');
  });
  for (const [db, exclude] of [
    [shardA, '/p/[45][0-9]$'],
    [shardB, '/p/1?[0-9]$'],
  ] as const) {
    const run = await execCli(['crawl', server.url, '--db', db, '-c', '4', '-q', '--exclude', exclude]);
    expect(run.code, run.stderr).toBe(0);
  }
}, 120_000);

afterEach(() => {
  killAll(children);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

/** Everything a merge writes, read back in a stable order. */
function contents(db: string) {
  return {
    pages: readArchive(db, 'SELECT url, status, sha256, fetched_at, depth FROM pages ORDER BY url'),
    captures: readArchive(db, 'SELECT url, fetched_at, sha256, latest FROM captures ORDER BY url, fetched_at'),
    links: readArchive(db, 'SELECT * FROM links ORDER BY from_url, to_url'),
    urls: readArchive(db, 'SELECT * FROM urls ORDER BY url'),
    text: readArchive(db, 'SELECT url, title, body FROM page_text ORDER BY url'),
    bodies: readArchive(db, 'SELECT count(*) AS n, sum(size) AS bytes FROM body'),
    runs: readArchive(db, 'SELECT started_at, ended_at, crawl FROM run ORDER BY started_at'),
  };
}

/** The last URL id the merge recorded as done in `db`, 0 while it cannot be read yet. */
function mergedUpTo(db: string): number {
  try {
    return readArchive<{ value: string }>(db, "SELECT value FROM meta WHERE key LIKE 'merge:%'")
      .map((row) => (JSON.parse(row.value) as { lastUrlId: number }).lastUrlId)
      .reduce((sum, n) => sum + n, 0);
  } catch {
    return 0;
  }
}

it('a merge killed with SIGKILL part-way and run again ends as an uninterrupted merge', async () => {
  const whole = tmp.path('whole.sqlite');
  const uninterrupted = await execCli(['merge', shardA, shardB, '--db', whole, '-q']);
  expect(uninterrupted.code, uninterrupted.stderr).toBe(0);

  const killed = tmp.path('killed.sqlite');
  const child = spawnCli(['merge', shardA, shardB, '--db', killed, '--batch', '1', '--pause-ms', '10']);
  children.push(child);
  await waitFor(
    'the merge to pass 20 URLs',
    () => mergedUpTo(killed) >= 20,
    60_000,
    () => child.output().stderr,
  );
  child.kill('SIGKILL');
  const end = await within(child.exited, 20_000, 'the killed merge');
  expect(end.stdout).not.toContain('Archive');
  const partial = mergedUpTo(killed);
  expect(partial).toBeGreaterThanOrEqual(20);
  expect(partial).toBeLessThan(readArchive<{ n: number }>(whole, 'SELECT count(*) AS n FROM url')[0]!.n);

  const again = await execCli(['merge', shardA, shardB, '--db', killed, '--batch', '7']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/going on after URL id \d+/);
  expect(contents(killed)).toEqual(contents(whole));
  expect(integrity(killed)).toBe('ok');
}, 120_000);
