import { afterAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { gapsBetween, sentRequests, tempDir } from './support/archive.js';
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
 * The least gap between two sends the crawler records with --delay 200: the frontier books the next start on
 * its clock once a send is told, and a worker sends only after its claim found that start due, so both sends
 * are noted (in ms, on the machine's one clock) at or past their causes; 1 ms for rounding.
 */
const LEAST_GAP_MS = 200 - 1;

/** When each worker's shard says it sent its requests, all shards merged, in order. */
const sendTimes = (shards: string[], only: (url: string) => boolean = () => true) =>
  sentRequests(...shards)
    .filter((sent) => only(sent.url))
    .map((sent) => sent.at);

describe.skipIf(!POSTGRES_INSTALLED)('politeness across the workers of a PostgreSQL frontier', () => {
  const pg = useCluster();
  const tmp = tempDir();
  const sites: TestServer[] = [];

  /** The site; `failOnce` paths answer 503 at once the first time they are asked, noting when (`failedAt`, ms since the epoch). */
  const linkedSite = (
    robots: string | undefined,
    failOnce: (path: string) => boolean = () => false,
    answerMs = ANSWER_MS,
    failedAt = new Map<string, number>(),
  ) => {
    return startServer(async (_req, res, path) => {
      if (path === '/robots.txt')
        return robots === undefined ? res.writeHead(404).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      if (failOnce(path) && !failedAt.has(path)) return (failedAt.set(path, Date.now()), res.writeHead(503).end());
      await sleep(answerMs);
      res.writeHead(200, { 'content-type': 'text/html' }).end(path === '/' ? index : linkedPage(Number(path.slice(3)), PAGES, pagePath));
    }).then((site) => (sites.push(site), site));
  };

  /** Three workers at -c 8 each, all at once, to the end of the crawl; their shards. */
  const threeWorkers = async (url: string, name: string) => {
    const shards = [1, 2, 3].map((n) => tmp.path(`${name}-${n}.sqlite`));
    const workers = shards.map((shard) => spawnCli(['worker', url, '--db', shard, '-c', '8']));
    // A few seconds of pacing; the rest is room for a machine running other suites.
    const ends = await within(Promise.all(workers.map((worker) => worker.exited)), 90_000, 'the workers', () =>
      workers.forEach((worker) => worker.kill('SIGKILL')),
    );
    for (const end of ends) expect(end.code, end.stderr).toBe(0);
    return shards;
  };
  afterAll(async () => {
    await Promise.all(sites.map((site) => site.close()));
    tmp.cleanup();
  });

  it('--per-host 2 --delay 200 hold for three workers together: two requests in flight at most, every start 200 ms after the one before', async () => {
    const site = await linkedSite(undefined);
    const url = await pg.createDatabase('flags');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url, '--per-host', '2', '--delay', '200'])).code).toBe(0);
    const shards = await threeWorkers(url, 'flags');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    expect(site.maxInFlight).toBeLessThanOrEqual(2);
    // Every request, robots.txt's included, is in some shard.
    const sent = sendTimes(shards);
    expect(sent).toHaveLength(sitePaths(PAGES).length);
    expect(Math.min(...gapsBetween(sent))).toBeGreaterThanOrEqual(LEAST_GAP_MS);
  }, 120_000);

  it("robots.txt's Crawl-delay holds for three workers together", async () => {
    const site = await linkedSite('User-agent: *\nCrawl-delay: 0.2\n');
    const url = await pg.createDatabase('robots');
    expect((await execCli(['frontier', 'init', url, '--roots', site.url])).code).toBe(0);
    const shards = await threeWorkers(url, 'robots');

    for (const path of sitePaths(PAGES)) expect(site.hitCount(path), path).toBe(1);
    // Crawl-delay is known to the frontier once robots.txt is stored: from then on (the pages the index linked to)
    // only the frontier paces the workers that found robots.txt being fetched by another and went on without its rules.
    const pages = sendTimes(shards, (url) => new URL(url).pathname.startsWith('/p/'));
    expect(pages).toHaveLength(PAGES);
    expect(Math.min(...gapsBetween(pages))).toBeGreaterThanOrEqual(LEAST_GAP_MS);
    const stored = await pg.query<{ crawl_delay_ms: number }>('SELECT crawl_delay_ms FROM origin_politeness', [], 'robots');
    expect(stored).toEqual([{ crawl_delay_ms: 200 }]);
  }, 120_000);

  it("--delay holds for retries too: a retry waits for the gap after any worker's request, its own failed one included, and the next request for the gap after it", async () => {
    // A quarter of the pages fail once at once; their retries come back after 50 ms of backoff, well within the gap.
    const DELAY_MS = 400;
    const failsOnce = (path: string) => path.startsWith('/p/') && Number(path.slice(3)) % 4 === 1;
    const failedAt = new Map<string, number>();
    const failing = await linkedSite(undefined, failsOnce, 50, failedAt);
    const url = await pg.createDatabase('retries');
    expect(
      (await execCli(['frontier', 'init', url, '--roots', failing.url, '--delay', String(DELAY_MS), '--retry-delay', '50'])).code,
    ).toBe(0);
    const shards = await threeWorkers(url, 'retries');

    for (const path of sitePaths(PAGES)) expect(failing.hitCount(path), path).toBe(failsOnce(path) ? 2 : 1);
    // The shards keep each URL's last try: every retry, and every request that did not fail.
    const sent = sentRequests(...shards);
    expect(sent).toHaveLength(sitePaths(PAGES).length);
    expect(Math.min(...gapsBetween(sent.map((request) => request.at)))).toBeGreaterThanOrEqual(DELAY_MS - 1);
    // A failed try is in no shard: the server noted when it answered it, which is after it was sent but, on a
    // busy machine, perhaps well after. Half the delay still tells a paced retry from one sent 50 ms after the 503.
    expect(failedAt.size).toBe(4);
    for (const [path, at] of failedAt) {
      const retry = sent.find((request) => new URL(request.url).pathname === path);
      expect(retry!.at - at, path).toBeGreaterThanOrEqual(DELAY_MS / 2);
    }
  }, 120_000);
});
