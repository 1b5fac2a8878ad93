import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileSha256, linkRows, pageRows, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { waitForHits, within } from './support/wait.js';
import { startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';

// The whole scale-out path: two workers share a PostgreSQL frontier, each writing a shard, and
// `crawlite merge` makes of the shards what one crawl of the site makes.
noticeIfMissing('pg-merge');

const PAGES = 200;
const pg = useCluster();
let site: TestServer;
const tmp = tempDir();
const made: { shards?: string[]; merged?: string } = {};

beforeAll(async () => {
  if (!POSTGRES_INSTALLED) return;
  // 25 ms an answer, two at a time: one worker alone would take 2.5 s, so the second joins while it works.
  site = await startLinkedSite(PAGES, 25);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it.skipIf(!POSTGRES_INSTALLED)(
  "two workers' shards merged equal a single crawl: same pages and bodies, same links, every URL done",
  async () => {
    const url = pg.url;
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '-c', '4'])).code).toBe(0);
    const shards = [tmp.path('shard-1.sqlite'), tmp.path('shard-2.sqlite')];
    const first = spawnCli(['worker', url, '--db', shards[0]!, '-c', '2']);
    await waitForHits(site, 10, first, 60_000);
    const second = spawnCli(['worker', url, '--db', shards[1]!, '-c', '2']);
    // About 5 s on a quiet machine; the rest is room for a loaded one.
    const workers = await within(
      Promise.all([first.exited, second.exited]),
      120_000,
      'the two workers',
      () => (first.kill('SIGKILL'), second.kill('SIGKILL')),
    );
    for (const worker of workers) expect(worker.code, worker.stderr).toBe(0);
    const perShard = shards.map((shard) => readArchive<{ n: number }>(shard, 'SELECT count(*) AS n FROM pages')[0]!.n);
    expect(
      perShard.every((n) => n > 0),
      `pages per shard: ${perShard.join(', ')}`,
    ).toBe(true);

    const merged = tmp.path('all.sqlite');
    const merge = await execCli(['merge', ...shards, '--db', merged, '-q']);
    expect(merge.code, merge.stderr).toBe(0);
    const single = tmp.path('single.sqlite');
    expect((await execCli(['crawl', site.url, '--db', single, '-q', '-c', '4'])).code).toBe(0);

    expect(pageRows(merged)).toEqual(pageRows(single));
    expect(linkRows(merged)).toEqual(linkRows(single));
    expect(readArchive(merged, 'SELECT state, count(*) AS n FROM urls GROUP BY state')).toEqual(
      readArchive(single, 'SELECT state, count(*) AS n FROM urls GROUP BY state'),
    );
    Object.assign(made, { shards, merged });
  },
  240_000,
);

it.skipIf(!POSTGRES_INSTALLED)(
  'a shard is not crawled on its own: crawl, resume, retry and recrawl refuse it unchanged; stats says what its queue is',
  async () => {
    const shard = made.shards![0]!;
    const before = fileSha256(shard);
    for (const args of [
      ['resume', shard],
      ['retry', shard],
      ['recrawl', shard],
      ['crawl', site.url, '--db', shard],
    ]) {
      expectOneLine(await execCli(args), /is a worker's shard of a crawl on a shared PostgreSQL frontier: go on with crawlite worker/);
    }
    expect(fileSha256(shard)).toBe(before);
    const queued = async (db: string) => /\d+ queued.*/.exec((await execCli(['stats', db])).stdout)?.[0];
    expect(await queued(shard)).toMatch(/queued here \(a shard: other workers fetch those; crawlite merge the shards/);
    // The merged archive is a crawl of its own: resumable, and its report says nothing of shards.
    expect(await queued(made.merged!)).toBe('0 queued');
    expect((await execCli(['stats', made.merged!, '--json'])).stdout).toMatch(/"shard": false/);
  },
  120_000,
);
