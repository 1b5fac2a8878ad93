import { afterAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { NEWEST_PG_SCHEMA, noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import { linksPage, serverPool } from './support/test-server.js';
import { sleep, within } from './support/wait.js';

noticeIfMissing('pg-limits');

/** Four pages, each linking to 50 of 200 query variants of /search (which link nowhere). */
const LISTS = 4;
const PER_LIST = 50;
const MAX_PER_PATH = 5;

describe.skipIf(!POSTGRES_INSTALLED)('crawl limits held across the workers of a PostgreSQL frontier', () => {
  const pg = useCluster();
  const servers = serverPool();
  const tmp = tempDir();

  afterAll(async () => {
    await servers.closeAll();
    tmp.cleanup();
  });

  it('--max-per-path caps the variants of a path over all workers together, and each shard records the rest skipped', async () => {
    const site = await servers.serve((_req, res, path) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      const ok = res.writeHead(200, { 'content-type': 'text/html' });
      if (path === '/') return ok.end(linksPage(Array.from({ length: LISTS }, (_, k) => `/list/${k}`)));
      if (path.startsWith('/list/')) {
        const k = Number(path.slice('/list/'.length));
        return ok.end(linksPage(Array.from({ length: PER_LIST }, (_, i) => `/search?q=${k * PER_LIST + i + 1}`)));
      }
      return ok.end(linksPage([]));
    });
    const url = await pg.createDatabase('variants');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--max-per-path', String(MAX_PER_PATH)])).code).toBe(0);
    const names = ['a', 'b', 'c'];
    const workers = names.map((name) => spawnCli(['worker', url, '--db', tmp.path(`${name}.sqlite`), '-c', '2', '--name', name]));
    // A few seconds on a quiet machine; the rest is room for a loaded one.
    const ends = await within(Promise.all(workers.map((worker) => worker.exited)), 60_000, 'the workers', () =>
      workers.forEach((worker) => worker.kill('SIGKILL')),
    );
    for (const end of ends) expect([end.code, end.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);

    const searched = [...site.hits.keys()].filter((path) => path.startsWith('/search'));
    expect(searched).toHaveLength(MAX_PER_PATH);
    for (const path of searched) expect(site.hitCount(path), path).toBe(1);

    const variants = await pg.query<{ state: string; error_code: string | null; n: string }>(
      "SELECT state, error_code, count(*) AS n FROM url WHERE url LIKE '%/search%' GROUP BY state, error_code ORDER BY state",
      [],
      'variants',
    );
    expect(variants.map((row) => [row.state, row.error_code, Number(row.n)])).toEqual([
      ['done', null, MAX_PER_PATH],
      ['skipped', 'trap_query_variants', LISTS * PER_LIST - MAX_PER_PATH],
    ]);
    const counted = await pg.query<{ path: string; count: number }>('SELECT path, count FROM query_variants', [], 'variants');
    expect(counted).toEqual([{ path: `${site.url}search`, count: LISTS * PER_LIST }]);

    // Over the shards: the same five fetched, the rest recorded as the frontier judged them, and the message as a single crawl words it.
    const fetched: string[] = [];
    const skipped: { url: string; error: string }[] = [];
    for (const name of names) {
      const shard = tmp.path(`${name}.sqlite`);
      fetched.push(
        ...readArchive<{ url: string }>(
          shard,
          "SELECT u.url FROM url u JOIN response r ON r.url_id = u.id WHERE u.url LIKE '%/search%'",
        ).map((row) => row.url),
      );
      skipped.push(
        ...readArchive<{ url: string; error: string }>(shard, "SELECT url, error FROM url WHERE error_code = 'trap_query_variants'"),
      );
    }
    expect(fetched.map((href) => new URL(href).pathname + new URL(href).search).sort()).toEqual([...searched].sort());
    expect(skipped).toHaveLength(LISTS * PER_LIST - MAX_PER_PATH);
    expect(skipped[0]!.error).toBe(`more than ${MAX_PER_PATH} URLs share the path ${site.url}search (--max-per-path)`);
  }, 120_000);

  it('a worker brings a frontier an older crawlite made up to date, the variants already in it counted', async () => {
    const site = await servers.serve((_req, res, path) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      const links = path === '/' ? Array.from({ length: 20 }, (_, i) => `/search?q=${i + 1}`) : [];
      res.writeHead(200, { 'content-type': 'text/html' }).end(linksPage(links));
    });
    const url = await pg.createDatabase('older');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--max-per-path', String(MAX_PER_PATH)])).code).toBe(0);
    // As version 2 left it (nothing of 0003 and later), with three variants of /search already found by its workers.
    await pg.query('DROP TABLE query_variants, control_request, control_setting, live_exclusion', [], 'older');
    await pg.query('ALTER TABLE worker DROP COLUMN ended_at', [], 'older');
    await pg.query('ALTER TABLE origin_politeness DROP COLUMN unsent_id, DROP COLUMN unsent_claims', [], 'older');
    await pg.query('UPDATE crawlite_schema SET version = 2', [], 'older');
    const earlier = [101, 102, 103].map((q) => `${site.url}search?q=${q}`);
    await pg.query(
      "INSERT INTO url (url, origin, kind, state, depth) SELECT u, $2, 'page', 'done', 1 FROM unnest($1::text[]) AS u",
      [earlier, site.url.slice(0, -1)],
      'older',
    );

    const end = await execCli(['worker', url, '--db', tmp.path('older.sqlite')]);
    expect([end.code, end.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);
    expect([...site.hits.keys()].filter((path) => path.startsWith('/search'))).toHaveLength(MAX_PER_PATH - earlier.length);
    expect(await pg.query('SELECT version FROM crawlite_schema', [], 'older')).toEqual([{ version: NEWEST_PG_SCHEMA }]);
  }, 120_000);

  it('--max-depth: a URL skipped deep is fetched when found within the limit, and a page fetched at the limit is fetched again found closer', async () => {
    // /slow is held until the frontier has /d skipped for its depth (4, by / -> /a -> /b -> /c -> /d): then it links to /c and /d at depth 2.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const links: Record<string, string[]> = {
      '/': ['/slow', '/a'],
      '/a': ['/b'],
      '/b': ['/c'],
      '/c': ['/d'],
      '/slow': ['/c', '/d'],
      '/d': [],
    };
    const site = await servers.serve(async (_req, res, path) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      if (path === '/slow') await held;
      res.writeHead(200, { 'content-type': 'text/html' }).end(linksPage(links[path] ?? []));
    });
    const url = await pg.createDatabase('depth');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--max-depth', '3'])).code).toBe(0);
    const worker = spawnCli(['worker', url, '--db', tmp.path('depth.sqlite'), '-c', '2']);
    try {
      const stateOf = async (path: string) =>
        (
          await pg.query<{ state: string; error_code: string | null }>(
            'SELECT state, error_code FROM url WHERE url = $1',
            [new URL(path, site.url).href],
            'depth',
          )
        )[0];
      // Bounded by count, with room for a loaded machine (each look is a query).
      for (let i = 0; i < 2_000 && (await stateOf('/d'))?.state !== 'skipped'; i += 1) {
        if (worker.exitCode !== null) break;
        await sleep(20);
      }
      expect(await stateOf('/d')).toEqual({ state: 'skipped', error_code: 'max_depth' });
      expect(await stateOf('/c')).toEqual({ state: 'done', error_code: null });
    } finally {
      release();
    }
    const end = await within(worker.exited, 40_000, 'the worker', () => worker.kill('SIGKILL'));
    expect([end.code, end.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);

    expect(site.hitCount('/d')).toBe(1);
    expect(site.hitCount('/c')).toBe(2);
    const rows = await pg.query<{ url: string; state: string; depth: number }>(
      'SELECT url, state, depth FROM url ORDER BY url',
      [],
      'depth',
    );
    const byPath = Object.fromEntries(rows.map((row) => [new URL(row.url).pathname, [row.state, row.depth]]));
    expect(byPath).toEqual({
      '/': ['done', 0],
      '/robots.txt': ['done', 0],
      '/a': ['done', 1],
      '/slow': ['done', 1],
      '/b': ['done', 2],
      '/c': ['done', 2],
      '/d': ['done', 2],
    });
    const shard = readArchive<{ url: string }>(
      tmp.path('depth.sqlite'),
      "SELECT u.url FROM url u JOIN response r ON r.url_id = u.id WHERE u.url LIKE '%/d'",
    );
    expect(shard).toHaveLength(1);
  }, 120_000);
});
