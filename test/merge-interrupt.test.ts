import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, runCli, spawnCli } from './support/cli.js';
import { startLinkedSite } from './support/linked-site.js';
import { killAll } from './support/process-tree.js';
import type { TestServer } from './support/test-server.js';
import { waitFor, within } from './support/wait.js';

// Ctrl-C or SIGTERM stops a merge wherever it is, its checks of the shards included, with one line and
// exit 130; the same command then finishes it. Slowed down (--pause-ms: a pause after each body checked
// and each batch merged) so each signal lands in the phase it is meant for.
const N = 40;
let site: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];
const shardA = tmp.path('a.sqlite');
const shardB = tmp.path('b.sqlite');

beforeAll(async () => {
  site = await startLinkedSite(N);
  for (const [db, exclude] of [
    [shardA, '/p/[23][0-9]$'],
    [shardB, '/p/1?[0-9]$'],
  ] as const) {
    const run = await runCli(['crawl', site.url, '--db', db, '-q', '--exclude', exclude]);
    expect(run.code, run.stderr).toBe(0);
  }
}, 120_000);

afterEach(() => killAll(children));

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

const contents = (db: string) => ({
  pages: readArchive(db, 'SELECT url, status, sha256, fetched_at FROM pages ORDER BY url'),
  captures: readArchive(db, 'SELECT url, fetched_at, sha256, latest FROM captures ORDER BY url, fetched_at'),
  urls: readArchive(db, 'SELECT * FROM urls ORDER BY url'),
  links: readArchive(db, 'SELECT * FROM links ORDER BY from_url, to_url'),
});

const mergedUpTo = (db: string): number => {
  try {
    return readArchive<{ value: string }>(db, "SELECT value FROM meta WHERE key LIKE 'merge:%'").reduce(
      (sum, row) => sum + (JSON.parse(row.value) as { lastUrlId: number }).lastUrlId,
      0,
    );
  } catch {
    return 0;
  }
};

async function interrupt(args: string[], signal: NodeJS.Signals, ready: (stderr: string) => boolean, what: string) {
  const child = spawnCli(args);
  children.push(child);
  await waitFor(
    what,
    () => ready(child.output().stderr),
    20_000,
    () => child.output().stderr,
  );
  child.kill(signal);
  return within(child.exited, 30_000, `the merge after ${signal}`, () => child.kill('SIGKILL'));
}

it('interrupted while it checks the shards, then while it copies, the merge stops with exit 130 each time and the same command finishes it', async () => {
  const whole = tmp.path('whole.sqlite');
  expect((await execCli(['merge', shardA, shardB, '--db', whole, '-q'])).code).toBe(0);

  const output = tmp.path('out.sqlite');
  const args = ['merge', shardA, shardB, '--db', output, '--batch', '1', '--pause-ms', '25'];
  // Ctrl-C while the first shard's bodies are hashed: stopped before the second shard's check begins, nothing written.
  const checking = await interrupt(
    args,
    'SIGINT',
    (stderr) => /a\.sqlite: checking its \d+ bodies/.test(stderr),
    'the check of the first shard',
  );
  expect(checking.code, checking.stderr).toBe(130);
  expect(checking.stderr.trimEnd().split('\n').at(-1)).toBe('crawlite: merge interrupted; run the same command again to go on');
  expect(checking.stderr).not.toMatch(/b\.sqlite: checking/);
  expect(existsSync(output)).toBe(false);

  // SIGTERM while batches are copied: what is committed stays, and says how far it got.
  const copying = await interrupt(args, 'SIGTERM', () => mergedUpTo(output) >= 5, 'five URLs merged');
  expect(copying.code, copying.stderr).toBe(130);
  expect(copying.stderr.trimEnd().split('\n').at(-1)).toBe('crawlite: merge interrupted; run the same command again to go on');
  expect(mergedUpTo(output)).toBeLessThan(mergedUpTo(whole));

  const again = await execCli(['merge', shardA, shardB, '--db', output]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/going on after URL id \d+/);
  expect(contents(output)).toEqual(contents(whole));
}, 180_000);
