import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, startPostgres, type Postgres } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';

// The whole scale-out path: two workers share a PostgreSQL frontier, each writing a shard, and
// `crawlite merge` makes of the shards what one crawl of the site makes.
noticeIfMissing('pg-merge');

const PAGES = 300;
const pg: { server?: Postgres } = {};
let site: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  if (!POSTGRES_INSTALLED) return;
  pg.server = await startPostgres();
  site = await startLinkedSite(PAGES, 5);
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
  const workers = await Promise.all(shards.map((shard) => execCli(['worker', url, '--db', shard, '-c', '4'])));
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
