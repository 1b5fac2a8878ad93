import { afterAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import { startServer, type TestServer } from './support/test-server.js';
import { sleep, within } from './support/wait.js';

noticeIfMissing('pg-politeness');

const PAGES = 15;
/** Longer than the delay, so that without a cap across workers a third request would start while two are in flight. */
const ANSWER_MS = 450;

/** The index links to every page, so each worker finds work as soon as it is fetched. */
const index = `<!doctype html><title>index</title>${Array.from({ length: PAGES }, (_, i) => `<a href="${pagePath(i)}">page ${i}</a>`).join(' ')}`;

/**
 * The least gap between two request starts the server may see with --delay 200. The frontier books the
 * next start from when a request's head went out, so no start comes early; but the server notes a start
 * when its handler runs, in this test process, whose event loop may lag behind the socket under load
 * (by tens of ms on a busy machine): a start noted late makes the gap after it look that much shorter.
 */
const LEAST_GAP_MS = 0.8 * 200;

/** Every request start the server saw, all paths merged, in order. */
const allStarts = (site: TestServer) => [...site.starts.values()].flat().sort((a, b) => a - b);
const gaps = (starts: number[]) => starts.slice(1).map((start, i) => start - starts[i]!);

describe.skipIf(!POSTGRES_INSTALLED)('politeness across the workers of a PostgreSQL frontier', () => {
  const pg = useCluster();
  const tmp = tempDir();
  const sites: TestServer[] = [];

  /** The site; `failOnce` paths answer 503 at once the first time they are asked. */
  const linkedSite = (robots: string | undefined, failOnce: (path: string) => boolean = () => false, answerMs = ANSWER_MS) => {
    const failed = new Set<string>();
    return startServer(async (_req, res, path) => {
      if (path === '/robots.txt') return robots === undefined ? res.writeHead(404).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      if (failOnce(path) && !failed.has(path)) return (failed.add(path), res.writeHead(503).end());
      await sleep(answerMs);
      res.writeHead(200, { 'content-type': 'text/html' }).end(path === '/' ? index : linkedPage(Number(path.slice(3)), PAGES, pagePath));
    }).then((site) => (sites.push(site), site));
  };

  /** Three workers at -c 8 each, all at once, to the end of the crawl. */
  const threeWorkers = async (url: string, name: string) => {
    const workers = [1, 2, 3].map((n) => spawnCli(['worker', url, '--db', tmp.path(`${name}-${n}.sqlite`), '-c', '8']));
    const ends = await within(Promise.all(workers.map((worker) => worker.exited)), 20_000, 'the workers', () => workers.forEach((worker) => worker.kill('SIGKILL')));
    for (const end of ends) expect(end.code, end.stderr).toBe(0);
  };
  afterAll(async () => {
    await Promise.all(sites.map((site) => site.close()));
    tmp.cleanup();
  });

  it('--per-host 2 --delay 200 hold for three workers together: two requests in flight at most, every start 200 ms after the one before', async () => {
    const site = await linkedSite(undefined);
    const url = await pg.createDatabase('flags');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--per-host', '2', '--delay', '200'])).code).toBe(0);
    await threeWorkers(url, 'flags');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    expect(site.maxInFlight).toBeLessThanOrEqual(2);
    const starts = allStarts(site);
    expect(Math.min(...gaps(starts))).toBeGreaterThanOrEqual(LEAST_GAP_MS);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual((starts.length - 1) * 190);
  });

  it("robots.txt's Crawl-delay holds for three workers together", async () => {
    const site = await linkedSite('User-agent: *\nCrawl-delay: 0.2\n');
    const url = await pg.createDatabase('robots');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    await threeWorkers(url, 'robots');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    // Crawl-delay is known to the frontier once robots.txt is stored: from then on (the pages the index linked to)
    // only the frontier paces the workers that found robots.txt being fetched by another and went on without its rules.
    const pages = [...site.starts].filter(([path]) => path.startsWith('/p/')).flatMap(([, at]) => at).sort((a, b) => a - b);
    expect(Math.min(...gaps(pages))).toBeGreaterThanOrEqual(LEAST_GAP_MS);
    expect(pages.at(-1)! - pages[0]!).toBeGreaterThanOrEqual((pages.length - 1) * 190);
    const stored = await pg.query<{ crawl_delay_ms: number }>('SELECT crawl_delay_ms FROM origin_politeness', [], 'robots');
    expect(stored).toEqual([{ crawl_delay_ms: 200 }]);
  });

  it('--delay 200 holds for retries too: a retry waits for the gap after any worker\'s request, and the next request for the gap after it', async () => {
    // Half the pages fail once at once; their retries come back after 50 ms of backoff, well within another worker's gap.
    const failsOnce = (path: string) => path.startsWith('/p/') && Number(path.slice(3)) % 2 === 1;
    const failing = await linkedSite(undefined, failsOnce, 50);
    const url = await pg.createDatabase('retries');
    expect((await execCli(['frontier', 'init', url, '--roots', failing.url, '--delay', '200', '--retry-delay', '50'])).code).toBe(0);
    await threeWorkers(url, 'retries');

    for (const path of sitePaths(PAGES)) expect(failing.hitCount(path), path).toBe(failsOnce(path) ? 2 : 1);
    expect(Math.min(...gaps(allStarts(failing)))).toBeGreaterThanOrEqual(LEAST_GAP_MS);
  });
});
