import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLine } from './support/one-line-error.js';
import { execCli, spawnCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { sitePaths, startLinkedSite } from './support/linked-site.js';
import { NEWEST_PG_SCHEMA, noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';
import { sleep, waitForHits, within } from './support/wait.js';

noticeIfMissing('pg-worker');

const PAGES = 200;

/** Each test runs workers to their end: seconds on a quiet machine, with room for a loaded one. */
const WORKER_TEST_MS = 240_000;

describe.skipIf(!POSTGRES_INSTALLED)('one worker on a PostgreSQL frontier', { timeout: WORKER_TEST_MS }, () => {
  const pg = useCluster();
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    site = await startLinkedSite(PAGES);
  });
  afterAll(async () => {
    await site?.close();
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
    const links = readArchive<{ n: number }>(shard, 'SELECT count(*) AS n FROM link');
    expect(links[0]!.n).toBeGreaterThan(PAGES * 3);
  });

  it('refuses an unreachable server with one line and exit 1', async () => {
    const worker = await execCli(['worker', 'postgres://postgres@127.0.0.1:1/none', '--db', tmp.path('never.sqlite')]);
    expect(worker.code).toBe(1);
    expect(worker.stderr.trim().split('\n')).toHaveLength(1);
    expect(worker.stderr).toMatch(/^crawlite: cannot reach postgres:\/\/postgres@127\.0\.0\.1:1\/none: .*ECONNREFUSED/);
  });
});

describe.skipIf(!POSTGRES_INSTALLED)('the frontier over its life', { timeout: WORKER_TEST_MS }, () => {
  const pg = useCluster();
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    site = await startLinkedSite(PAGES, 10);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('a worker rides out PostgreSQL going away and coming back, saying so once', async () => {
    const url = await pg.createDatabase('outage');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    const shard = tmp.path('outage.sqlite');
    const worker = spawnCli(['worker', url, '--db', shard, '-c', '2']);
    await waitForHits(site, 60, worker, 60_000);
    await pg.stop();
    await sleep(1_500);
    await pg.restart();
    const end = await within(worker.exited, 120_000, 'the worker', () => worker.kill('SIGKILL'));
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr.match(/lost the connection to the frontier/g)).toHaveLength(1);

    const stored = readArchive<{ url: string }>(shard, 'SELECT u.url FROM url u JOIN response r ON r.url_id = u.id');
    expect(stored.map((row) => row.url).sort()).toEqual(
      sitePaths(PAGES)
        .map((path) => new URL(path, site.url).href)
        .sort(),
    );
    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBeLessThanOrEqual(2);
    const states = await execCli(['frontier', 'status', url]);
    expect(states.stdout).toContain(`queued 0, leased 0, done ${stored.length}, failed 0, skipped 0\n`);
  });

  it('frontier status counts URLs by state and origin and names the workers seen', async () => {
    const url = await pg.createDatabase('status');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    const before = await execCli(['frontier', 'status', url]);
    expect(before.stdout).toContain('queued 1, leased 0, done 0, failed 0, skipped 0\n');
    expect(before.stdout).toContain('workers seen in the last minute: 0\n');
    expect((await execCli(['worker', url, '--db', tmp.path('status.sqlite'), '--name', 'w1'])).code).toBe(0);
    const after = await execCli(['frontier', 'status', url]);
    expect(after.code).toBe(0);
    const done = sitePaths(PAGES).length;
    expect(after.stdout).toContain(`queued 0, leased 0, done ${done}, failed 0, skipped 0\n`);
    expect(after.stdout).toContain(`  ${site.url.slice(0, -1)}: queued 0, leased 0, done ${done}`);
    expect(after.stdout).toMatch(/workers seen in the last minute: 1\n {2}w1 \(last seen \d+ s ago, 0 leased\)/);
  });

  it('frontier status lists the origins with the most work left first, 20 unless --hosts says, and all of them in --json', async () => {
    const url = await pg.createDatabase('hosts');
    // 25 origins that no worker visits: one root queued on each (ports nothing listens on; nothing is fetched).
    const roots = Array.from({ length: 25 }, (_, i) => `http://127.0.0.1:${40_001 + i}/`);
    expect((await execCli(['frontier', 'init', url, '--roots', ...roots])).code).toBe(0);
    // One origin with more work left than the rest: it is listed first.
    await pg.query(
      "INSERT INTO url (url, origin, kind, state, depth) VALUES ('http://127.0.0.1:40025/more', 'http://127.0.0.1:40025', 'page', 'queued', 1)",
      [],
      'hosts',
    );
    const status = await execCli(['frontier', 'status', url]);
    const listed = status.stdout.split('\n').filter((row) => row.startsWith('  http://'));
    expect(listed).toHaveLength(20);
    expect(listed[0]).toBe('  http://127.0.0.1:40025: queued 2, leased 0, done 0, failed 0, skipped 0');
    expect(status.stdout).toContain('  ... and 5 more origins (--hosts 0 lists every one)\n');
    const all = await execCli(['frontier', 'status', url, '--hosts', '0']);
    expect(all.stdout.split('\n').filter((row) => row.startsWith('  http://'))).toHaveLength(25);
    expect(all.stdout).not.toContain('more origin');
    const json = JSON.parse((await execCli(['frontier', 'status', url, '--json'])).stdout) as {
      total: Record<string, number>;
      origins: unknown[];
    };
    expect(json.total.queued).toBe(26);
    expect(json.origins).toHaveLength(25);
    expectOneLine(await execCli(['frontier', 'status', url, '--hosts', '-1']), /--hosts must be a whole number/);
  });

  it('with no connection string, init, worker and status find the server through PGHOST, PGPORT, PGDATABASE and PGUSER', async () => {
    await pg.createDatabase('by_env');
    const env = { PGHOST: '127.0.0.1', PGPORT: String(pg.port), PGDATABASE: 'by_env', PGUSER: 'postgres' };
    expect((await execCli(['frontier', 'init', '--roots', site.url], { env })).code).toBe(0);
    const shard = tmp.path('by-env.sqlite');
    const worker = await execCli(['worker', '--db', shard], { env });
    expect([worker.code, worker.stderr]).toEqual([0, expect.any(String)]);
    const done = sitePaths(PAGES).length;
    expect((await execCli(['frontier', 'status'], { env })).stdout).toContain(`queued 0, leased 0, done ${done}, failed 0, skipped 0\n`);
    const donePages = await pg.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM url WHERE state = 'done' AND kind = 'page'",
      [],
      'by_env',
    );
    expect(donePages[0]!.n).toBeGreaterThan(0);
    expect(readArchive(shard, "SELECT count(*) AS n FROM pages WHERE kind = 'page'")).toEqual(donePages);
    // Nothing went to the cluster's default database.
    expect(await pg.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'url'")).toEqual([{ n: 0 }]);
  });

  it("a worker stops at the crawl's --max-pages, leaving the rest queued", async () => {
    const url = await pg.createDatabase('limited');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--max-pages', '20'])).code).toBe(0);
    const worker = spawnCli(['worker', url, '--db', tmp.path('limited.sqlite')]);
    const end = await within(worker.exited, 60_000, 'the worker', () => worker.kill('SIGKILL'));
    expect([end.code, end.stderr]).toEqual([0, expect.stringContaining("stopped at the crawl's --max-pages")]);
    const pages = await pg.query<{ n: string }>("SELECT count(*) AS n FROM url WHERE state = 'done' AND kind = 'page'", [], 'limited');
    expect(Number(pages[0]!.n)).toBe(20);
  });

  it('refuses a second init, a database with no crawl and a schema newer than it knows, each with one line', async () => {
    const url = await pg.createDatabase('refusals');
    const none = await execCli(['worker', url, '--db', tmp.path('none.sqlite')]);
    expect([none.code, none.stderr]).toEqual([
      1,
      expect.stringMatching(/^crawlite: .* holds no crawl: create one with crawlite frontier init/),
    ]);
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    const again = await execCli(['frontier', 'init', url, '--roots', site.url]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/^crawlite: .* already holds a crawl/)]);
    await pg.query('UPDATE crawlite_schema SET version = 99', [], 'refusals');
    const newer = await execCli(['worker', url, '--db', tmp.path('newer.sqlite')]);
    expect([newer.code, newer.stderr]).toEqual([
      1,
      `crawlite: the frontier's schema is version 99, newer than this crawlite knows (${NEWEST_PG_SCHEMA}): upgrade crawlite on this machine\n`,
    ]);
  });
});
