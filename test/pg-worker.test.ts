import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, startPostgres, type Postgres } from './support/postgres.js';
import { startServer, type TestServer } from './support/test-server.js';

noticeIfMissing('pg-worker');

const PAGES = 200;

describe.skipIf(!POSTGRES_INSTALLED)('one worker on a PostgreSQL frontier', () => {
  let pg: Postgres;
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    pg = await startPostgres();
    site = await startServer((_req, res, path) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      const i = path === '/' ? 0 : Number(path.slice(3));
      res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(i, PAGES, pagePath));
    });
  });
  afterAll(async () => {
    await site?.close();
    await pg?.destroy();
    tmp.cleanup();
  });

  it('crawls the whole site into its shard, each page once, and leaves the frontier all done', async () => {
    const init = await execCli(['frontier', 'init', pg.url, '--roots', site.url, '-c', '8']);
    expect(init.stderr).toContain('1 root URL queued');
    expect(init.code).toBe(0);

    const shard = tmp.path('shard-1.sqlite');
    const worker = await execCli(['worker', pg.url, '--db', shard]);
    expect(worker.stderr).not.toContain('crawlite:');
    expect(worker.code).toBe(0);

    const stored = readArchive<{ url: string }>(shard, 'SELECT u.url FROM url u JOIN response r ON r.url_id = u.id ORDER BY u.url');
    const expected = sitePaths(PAGES).map((path) => new URL(path, site.url).href);
    expect(stored.map((row) => row.url).sort()).toEqual([...expected].sort());
    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);

    const states = await pg.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM url GROUP BY state');
    expect(states.map((row) => [row.state, Number(row.n)])).toEqual([['done', expected.length]]);
    const links = readArchive<{ n: number }>(shard, "SELECT count(*) AS n FROM link");
    expect(links[0]!.n).toBeGreaterThan(PAGES * 3);
  });

  it('refuses an unreachable server with one line and exit 1', async () => {
    const worker = await execCli(['worker', 'postgres://postgres@127.0.0.1:1/none', '--db', tmp.path('never.sqlite')]);
    expect(worker.code).toBe(1);
    expect(worker.stderr.trim().split('\n')).toHaveLength(1);
    expect(worker.stderr).toMatch(/^crawlite: cannot reach postgres:\/\/postgres@127\.0\.0\.1:1\/none: .*ECONNREFUSED/);
  });
});
