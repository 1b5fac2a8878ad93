import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pageRows, readArchive, tempDir } from '../support/archive.js';
import { execCli, spawnCli } from '../support/cli.js';
import { linkedPage, pagePath, startLinkedSite } from '../support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from '../support/postgres.js';
import type { TestServer } from '../support/test-server.js';
import { waitForHits, within } from '../support/wait.js';

// A frontier made with --compact: each worker writes its shard compressed, and the merge of the shards is a
// compact archive whose pages are those of a plain single crawl, body for body.
noticeIfMissing('pg-workers-compact');

const PAGES = 100;
const pg = useCluster();
let site: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  if (!POSTGRES_INSTALLED) return;
  site = await startLinkedSite(PAGES, 25);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

const pageBodies = (db: string) =>
  readArchive<{ url: string; body: Buffer; size: number }>(db, "SELECT url, body, size FROM pages WHERE url LIKE '%/p/%' ORDER BY url");

it.skipIf(!POSTGRES_INSTALLED)(
  'workers of a --compact frontier write compressed shards, merged into a compact archive that reads as a plain crawl',
  async () => {
    expect((await execCli(['frontier', 'init', pg.url, '--roots', site.url, '-c', '4', '--compact'])).code).toBe(0);
    const shards = [tmp.path('shard-1.sqlite'), tmp.path('shard-2.sqlite')];
    const first = spawnCli(['worker', pg.url, '--db', shards[0]!, '-c', '2']);
    await waitForHits(site, 10, first, 60_000);
    const second = spawnCli(['worker', pg.url, '--db', shards[1]!, '-c', '2']);
    const workers = await within(
      Promise.all([first.exited, second.exited]),
      120_000,
      'the two workers',
      () => (first.kill('SIGKILL'), second.kill('SIGKILL')),
    );
    for (const worker of workers) expect(worker.code, worker.stderr).toBe(0);
    for (const shard of shards) {
      const rows = pageBodies(shard);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.body.length, `${shard} ${row.url}`).toBeLessThan(row.size);
    }

    const merged = tmp.path('all.sqlite');
    const merge = await execCli(['merge', ...shards, '--db', merged, '-q']);
    expect(merge.code, merge.stderr).toBe(0);
    const single = tmp.path('single.sqlite');
    expect((await execCli(['crawl', site.url, '--db', single, '-q', '-c', '4'])).code).toBe(0);
    expect(pageRows(merged)).toEqual(pageRows(single));
    const rows = pageBodies(merged);
    expect(rows).toHaveLength(PAGES);
    for (const row of rows) {
      expect(row.body.length, row.url).toBeLessThan(row.size);
      expect(inflateSync(row.body).toString(), row.url).toBe(linkedPage(Number(/\/p\/(\d+)$/.exec(row.url)![1]), PAGES, pagePath));
    }
    expect(readArchive(merged, "SELECT value FROM meta WHERE key = 'compact'")).toEqual([{ value: 'true' }]);
  },
  240_000,
);
