import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { waitForHits, within } from './support/wait.js';
import { startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, startPostgres, type Postgres } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';

// The whole scale-out path: two workers share a PostgreSQL frontier, each writing a shard, and
// `crawlite merge` makes of the shards what one crawl of the site makes.
noticeIfMissing('pg-merge');

const PAGES = 200;
const pg: { server?: Postgres } = {};
let site: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  if (!POSTGRES_INSTALLED) return;
  pg.server = await startPostgres();
  // 25 ms an answer, two at a time: one worker alone would take 2.5 s, so the second joins while it works.
  site = await startLinkedSite(PAGES, 25);
}, 30_000);

afterAll(async () => {
  await site?.close();
  await pg.server?.destroy();
  tmp.cleanup();
});

it.skipIf(!POSTGRES_INSTALLED)('two workers\' shards merged equal a single crawl: same pages and bodies, same links, every URL done', async () => {
  const url = pg.server!.url;
  expect((await execCli(['frontier', 'init', url, '--roots', site.url, '-c', '4'])).code).toBe(0);
  const shards = [tmp.path('shard-1.sqlite'), tmp.path('shard-2.sqlite')];
  const first = spawnCli(['worker', url, '--db', shards[0]!, '-c', '2']);
  await waitForHits(site, 10, first);
  const second = spawnCli(['worker', url, '--db', shards[1]!, '-c', '2']);
  const workers = await within(Promise.all([first.exited, second.exited]), 30_000, 'the two workers', () => (first.kill('SIGKILL'), second.kill('SIGKILL')));
  for (const worker of workers) expect(worker.code, worker.stderr).toBe(0);
  const perShard = shards.map((shard) => readArchive<{ n: number }>(shard, 'SELECT count(*) AS n FROM pages')[0]!.n);
  expect(perShard.every((n) => n > 0), `pages per shard: ${perShard.join(', ')}`).toBe(true);

  const merged = tmp.path('all.sqlite');
  const merge = await execCli(['merge', ...shards, '--db', merged, '-q']);
  expect(merge.code, merge.stderr).toBe(0);
  const single = tmp.path('single.sqlite');
  expect((await execCli(['crawl', site.url, '--db', single, '-q', '-c', '4'])).code).toBe(0);

  const pages = (db: string) => readArchive(db, 'SELECT url, status, sha256 FROM pages ORDER BY url');
  const links = (db: string) => readArchive(db, 'SELECT from_url, to_url, kind FROM links ORDER BY from_url, to_url, kind');
  expect(pages(merged)).toEqual(pages(single));
  expect(links(merged)).toEqual(links(single));
  expect(readArchive(merged, 'SELECT state, count(*) AS n FROM urls GROUP BY state')).toEqual(readArchive(single, 'SELECT state, count(*) AS n FROM urls GROUP BY state'));
}, 60_000);
