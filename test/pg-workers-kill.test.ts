import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { linkRows, pageRows, readArchive, tempDir } from './support/archive.js';
import { sitePaths, startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';
import { waitForHits, within } from './support/wait.js';

noticeIfMissing('pg-workers-kill');

const PAGES = 2_000;
const DELAY_MS = 20;
/** Short, so the killed worker's URLs come back within the test; long enough that a live worker renews in time on a loaded machine. */
const LEASE_MS = 4_000;

describe.skipIf(!POSTGRES_INSTALLED)('workers sharing a PostgreSQL frontier, one killed', () => {
  const pg = useCluster();
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    site = await startLinkedSite(PAGES, DELAY_MS);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it("finishes the site: every page in some shard, none fetched more than twice, the dead worker's leases claimed again; merged, the shards equal one crawl", async () => {
    expect((await execCli(['frontier', 'init', pg.url, '--roots', site.url])).code).toBe(0);
    const worker = (name: string) =>
      spawnCli(['worker', pg.url, '--db', tmp.path(`${name}.sqlite`), '-c', '4', '--lease', String(LEASE_MS), '--name', name]);

    const a = worker('a');
    const b = worker('b');
    await waitForHits(site, 500, a, 90_000);
    a.kill('SIGKILL');
    await a.exited;
    const orphaned = await pg.query<{ url: string }>("SELECT url FROM url WHERE state = 'leased' AND lease_owner LIKE 'a/%'");
    expect(orphaned.length).toBeGreaterThan(0);
    const c = worker('c');

    // About 5 s on a quiet machine; the rest is room for a loaded one.
    const [endB, endC] = await within(
      Promise.all([b.exited, c.exited]),
      120_000,
      'workers b and c',
      () => (b.kill('SIGKILL'), c.kill('SIGKILL')),
    );
    expect([endB.code, endB.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);
    expect([endC.code, endC.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);

    // The union of the shards' pages is the site.
    const expected = sitePaths(PAGES).map((path) => new URL(path, site.url).href);
    const stored = new Set<string>();
    for (const name of ['a', 'b', 'c']) {
      for (const row of readArchive<{ url: string }>(
        tmp.path(`${name}.sqlite`),
        'SELECT u.url FROM url u JOIN response r ON r.url_id = u.id',
      ))
        stored.add(row.url);
    }
    expect([...stored].sort()).toEqual([...expected].sort());
    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBeLessThanOrEqual(2);

    const states = await pg.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM url GROUP BY state');
    expect(states.map((row) => [row.state, Number(row.n)])).toEqual([['done', expected.length]]);
    // What the killed worker held was claimed again after its lease ran out, and finished by another.
    const taken = await pg.query<{ url: string; claims: number; done_by: string }>(
      'SELECT url, claims, done_by FROM url WHERE url = ANY($1)',
      [orphaned.map((row) => row.url)],
    );
    for (const row of taken) {
      expect(row.claims, row.url).toBeGreaterThanOrEqual(2);
      expect(row.done_by, row.url).not.toMatch(/^a\//);
    }

    // The killed worker's shard too (left in WAL mode, a page perhaps stored twice): merged, the three are one crawl.
    const merged = tmp.path('all.sqlite');
    const merge = await execCli(['merge', ...['a', 'b', 'c'].map((name) => tmp.path(`${name}.sqlite`)), '--db', merged, '-q']);
    expect(merge.code, merge.stderr).toBe(0);
    const single = tmp.path('single.sqlite');
    expect((await execCli(['crawl', site.url, '--db', single, '-q', '-c', '8'])).code).toBe(0);
    expect(pageRows(merged)).toEqual(pageRows(single));
    expect(linkRows(merged)).toEqual(linkRows(single));
  }, 360_000);
});
