import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, startPostgres, type Postgres } from './support/postgres.js';
import { startServer, type TestServer } from './support/test-server.js';
import { sleep, within } from './support/wait.js';

noticeIfMissing('pg-politeness');

const PAGES = 15;
/** Longer than the delay, so that without a cap across workers a third request would start while two are in flight. */
const ANSWER_MS = 450;

/** The index links to every page, so each worker finds work as soon as it is fetched. */
const index = `<!doctype html><title>index</title>${Array.from({ length: PAGES }, (_, i) => `<a href="${pagePath(i)}">page ${i}</a>`).join(' ')}`;

/** Every request start the server saw, all paths merged, in order. */
const allStarts = (site: TestServer) => [...site.starts.values()].flat().sort((a, b) => a - b);
const gaps = (starts: number[]) => starts.slice(1).map((start, i) => start - starts[i]!);

describe.skipIf(!POSTGRES_INSTALLED)('politeness across the workers of a PostgreSQL frontier', () => {
  let pg: Postgres;
  const tmp = tempDir();
  const sites: TestServer[] = [];

  const linkedSite = (robots: string | undefined) =>
    startServer(async (_req, res, path) => {
      if (path === '/robots.txt') return robots === undefined ? res.writeHead(404).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      await sleep(ANSWER_MS);
      res.writeHead(200, { 'content-type': 'text/html' }).end(path === '/' ? index : linkedPage(Number(path.slice(3)), PAGES, pagePath));
    }).then((site) => (sites.push(site), site));

  /** Three workers at -c 8 each, all at once, to the end of the crawl. */
  const threeWorkers = async (url: string, name: string) => {
    const workers = [1, 2, 3].map((n) => spawnCli(['worker', url, '--db', tmp.path(`${name}-${n}.sqlite`), '-c', '8']));
    const ends = await within(Promise.all(workers.map((worker) => worker.exited)), 20_000, 'the workers', () => workers.forEach((worker) => worker.kill('SIGKILL')));
    for (const end of ends) expect(end.code, end.stderr).toBe(0);
  };

  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(sites.map((site) => site.close()));
    await pg?.destroy();
    tmp.cleanup();
  });

  it('--per-host 2 --delay 200 hold for three workers together: two requests in flight at most, starts 200 ms apart on average, none closer than 50 ms', async () => {
    const site = await linkedSite(undefined);
    await pg.query('CREATE DATABASE flags');
    const url = pg.url.replace(/\/postgres$/, '/flags');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--per-host', '2', '--delay', '200'])).code).toBe(0);
    await threeWorkers(url, 'flags');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    expect(site.maxInFlight).toBeLessThanOrEqual(2);
    // Starts are booked 200 ms apart when claimed; the time from a claim to its request reaching the server
    // varies with the machine's load, so one gap may shrink by that much, never the pace overall.
    const starts = allStarts(site);
    expect(Math.min(...gaps(starts))).toBeGreaterThanOrEqual(50);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual((starts.length - 1) * 190);
  });

  it("robots.txt's Crawl-delay holds for three workers together", async () => {
    const site = await linkedSite('User-agent: *\nCrawl-delay: 0.2\n');
    await pg.query('CREATE DATABASE robots');
    const url = pg.url.replace(/\/postgres$/, '/robots');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    await threeWorkers(url, 'robots');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    // Crawl-delay is known to the frontier once robots.txt is stored: from then on (the pages the index linked to)
    // only the frontier paces the workers that found robots.txt being fetched by another and went on without its
    // rules; a gap may lose the time between a claim and its request going out, but the crawl keeps the pace.
    const pages = [...site.starts].filter(([path]) => path.startsWith('/p/')).flatMap(([, at]) => at).sort((a, b) => a - b);
    expect(Math.min(...gaps(pages))).toBeGreaterThanOrEqual(50);
    expect(pages.at(-1)! - pages[0]!).toBeGreaterThanOrEqual((pages.length - 1) * 190);
    const stored = await pg.query<{ crawl_delay_ms: number }>('SELECT crawl_delay_ms FROM origin_politeness', [], 'robots');
    expect(stored).toEqual([{ crawl_delay_ms: 200 }]);
  });
});
