import { afterAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import { linksPage, serverPool } from './support/test-server.js';
import { within } from './support/wait.js';

// Workers starting on a site together all want its robots.txt first: one fetches it, the others wait for
// its answer instead of crawling as if the site had none.
noticeIfMissing('pg-robots');

const SECTIONS = ['private', 'public'];
const PER_SECTION = 5;
/** Long enough that every worker asks for robots.txt while the first asker waits for it. */
const ROBOTS_AFTER_MS = 800;

describe.skipIf(!POSTGRES_INSTALLED)('robots.txt on a shared PostgreSQL frontier', () => {
  const pg = useCluster();
  const servers = serverPool();
  const tmp = tempDir();

  afterAll(async () => {
    await servers.closeAll();
    tmp.cleanup();
  });

  it('workers that start while another fetches robots.txt wait for its rules: nothing it disallows is requested', async () => {
    let robotsAsked = 0;
    const site = await servers.serve(async (_req, res, path) => {
      if (path === '/robots.txt') {
        robotsAsked += 1;
        await new Promise((resolve) => setTimeout(resolve, ROBOTS_AFTER_MS));
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      }
      const links =
        path === '/' ? SECTIONS.flatMap((section) => Array.from({ length: PER_SECTION }, (_, i) => `/${section}/${i + 1}`)) : [];
      res.writeHead(200, { 'content-type': 'text/html' }).end(linksPage(links));
    });
    expect((await execCli(['frontier', 'init', pg.url, '--roots', site.url])).code).toBe(0);
    const workers = ['a', 'b', 'c'].map((name) =>
      spawnCli(['worker', pg.url, '--db', tmp.path(`${name}.sqlite`), '-c', '2', '--name', name]),
    );
    // A few seconds on a quiet machine; the rest is room for a loaded one.
    const ends = await within(Promise.all(workers.map((worker) => worker.exited)), 90_000, 'the workers', () =>
      workers.forEach((worker) => worker.kill('SIGKILL')),
    );
    for (const end of ends) expect([end.code, end.stderr]).toEqual([0, expect.not.stringContaining('crawlite:')]);

    expect(robotsAsked).toBe(1);
    expect([...site.hits.keys()].filter((path) => path.startsWith('/private/'))).toEqual([]);
    expect([...site.hits.keys()].filter((path) => path.startsWith('/public/'))).toHaveLength(PER_SECTION);
    const privates = await pg.query<{ state: string; error_code: string | null }>(
      "SELECT state, error_code FROM url WHERE url LIKE '%/private/%'",
    );
    expect(privates).toHaveLength(PER_SECTION);
    for (const row of privates) expect(row).toEqual({ state: 'skipped', error_code: 'robots' });
  }, 120_000);
});
