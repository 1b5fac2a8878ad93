import { afterAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { startCommitCuttingProxy } from './support/commit-cutting-proxy.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import { linksPage, startServer, type TestServer } from './support/test-server.js';
import { waitFor, within } from './support/wait.js';

noticeIfMissing('pg-outage-one-shard');

/** Short, so worker a's lease runs out while it is cut off; long enough that b renews its own on a loaded machine. */
const LEASE_MS = 2_000;

// Worker a commits the index page to its shard, and the frontier loses it on the way: the COMMIT that
// would have marked it done never arrives, and a cannot reach PostgreSQL for a while. If another worker
// took the URL meanwhile (a's lease ran out), the index must end in that worker's shard only; if no one
// did, a's commit stands and the page is not fetched again. Merged, every URL of the crawl has one capture.

const PATHS = ['/robots.txt', '/', '/a', '/b'];

describe.skipIf(!POSTGRES_INSTALLED)('a worker cut off between its shard and the frontier', () => {
  const pg = useCluster();
  const tmp = tempDir();
  const opened: { close(): Promise<void> }[] = [];

  afterAll(async () => {
    for (const thing of opened.reverse()) await thing.close();
    tmp.cleanup();
  });

  /** A three-page site, a frontier on it in a database of its own, and worker a behind a proxy that cuts it off at the index's COMMIT. */
  async function cutOffAtTheIndex(database: string) {
    const site = await startServer((_req, res, path) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      const body = path === '/' ? linksPage(['/a', '/b']) : linksPage([]);
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    opened.push(site);
    const url = await pg.createDatabase(database);
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    // The index's commit names the links it found: that COMMIT is the one cut.
    const proxy = await startCommitCuttingProxy(pg.port, 'crawlite-finish', `${site.url}a`);
    opened.push(proxy);
    const worker = (name: string, through = url) =>
      spawnCli(['worker', through, '--db', tmp.path(`${database}-${name}.sqlite`), '-c', '1', '--lease', String(LEASE_MS), '--name', name]);
    const a = worker('a', url.replace(`:${pg.port}/`, `:${proxy.port}/`));
    await waitFor('the cut', () => proxy.cut || a.exitCode !== null, 60_000);
    expect(proxy.cut, a.output().stderr).toBe(true);
    expect(site.hitCount('/')).toBe(1);
    const captured = (name: string) =>
      readArchive<{ url: string }>(tmp.path(`${database}-${name}.sqlite`), 'SELECT url FROM captures ORDER BY url').map((row) => row.url);
    const merge = async (...names: string[]) => {
      const merged = tmp.path(`${database}-all.sqlite`);
      const run = await execCli(['merge', ...names.map((name) => tmp.path(`${database}-${name}.sqlite`)), '--db', merged, '-q']);
      expect(run.code, run.stderr).toBe(0);
      return merged;
    };
    const hits = () => Object.fromEntries(PATHS.map((path) => [path, site.hitCount(path)]));
    const index = () =>
      pg.query<{ state: string; claims: number; done_by: string }>(
        'SELECT state, claims, done_by FROM url WHERE url = $1',
        [site.url],
        database,
      );
    return { site, proxy, a, worker, captured, merge, hits, index };
  }

  const oneCaptureEach = (merged: string, site: TestServer) => {
    const counts = readArchive<{ url: string; n: number }>(merged, 'SELECT url, count(*) AS n FROM captures GROUP BY url ORDER BY url');
    expect(counts).toEqual(['', 'a', 'b', 'robots.txt'].map((path) => ({ url: `${site.url}${path}`, n: 1 })));
    expect(readArchive(merged, "SELECT url, state FROM url WHERE state <> 'done'")).toEqual([]);
  };

  it('keeps a page it lost the lease of out of its shard: merged, each URL has one capture', async () => {
    const { site, proxy, a, worker, captured, merge, hits, index } = await cutOffAtTheIndex('taken');

    // b claims the index once a's lease has run out, and crawls the rest; a is cut off all along.
    const b = worker('b');
    const endB = await within(b.exited, 120_000, 'worker b', () => b.kill('SIGKILL'));
    expect([endB.code, endB.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);
    proxy.heal();
    const endA = await within(a.exited, 120_000, 'worker a', () => a.kill('SIGKILL'));
    expect(endA.code, endA.stderr).toBe(0);
    expect(endA.stderr).toMatch(/lost the connection to the frontier/);

    // Fetched twice (a's lease ran out while it was away), stored once: by b, which held the lease.
    expect(hits()).toEqual({ '/robots.txt': 1, '/': 2, '/a': 1, '/b': 1 });
    expect(await index()).toEqual([{ state: 'done', claims: 2, done_by: expect.stringMatching(/^b\//) }]);
    expect(captured('a')).toEqual([`${site.url}robots.txt`]);
    expect(captured('b')).toEqual([site.url, `${site.url}a`, `${site.url}b`]);
    oneCaptureEach(await merge('a', 'b'), site);
  }, 300_000);

  it('commits to the frontier a page no one took meanwhile, without fetching it again', async () => {
    const { site, proxy, a, captured, merge, hits, index } = await cutOffAtTheIndex('kept');
    proxy.heal();
    const endA = await within(a.exited, 120_000, 'worker a', () => a.kill('SIGKILL'));
    expect(endA.code, endA.stderr).toBe(0);
    expect(endA.stderr).toMatch(/lost the connection to the frontier/);

    expect(hits()).toEqual({ '/robots.txt': 1, '/': 1, '/a': 1, '/b': 1 });
    expect(await index()).toEqual([{ state: 'done', claims: 1, done_by: expect.stringMatching(/^a\//) }]);
    expect(captured('a')).toEqual([site.url, `${site.url}a`, `${site.url}b`, `${site.url}robots.txt`]);
    oneCaptureEach(await merge('a'), site);
  }, 300_000);
});
