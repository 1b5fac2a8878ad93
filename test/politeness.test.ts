import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gapsBetween, readArchive, sentRequests, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool, text, type Handler, type Route, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';
import { sleep } from './support/wait.js';

const tmp = tempDir();
const servers = serverPool();

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

/**
 * Gaps are measured between the times the crawler stored for sending each request (started_at): a send is
 * noted when its head goes out, and the next start is booked from then, so a busy machine only makes a gap
 * longer. (The test servers run in this process: their event loop may note one arrival late and the next on
 * time, which makes a gap look shorter than it was.) 1 ms for rounding.
 */
const ROUNDING_MS = 1;

/** When the crawler sent each stored request on `server`'s origin, in order. */
const sendTimes = (db: string, server: TestServer, only: (path: string) => boolean = () => true) =>
  sentRequests(db)
    .filter((sent) => sent.url.startsWith(server.url) && only(new URL(sent.url).pathname))
    .map((sent) => sent.at);
const notRobots = (path: string) => path !== '/robots.txt';
/** When the crawler sent `path`'s stored request. */
const sentAt = (db: string, server: TestServer, path: string) => sendTimes(db, server, (at) => at === path)[0]!;

/** Every request start on a server, in the order the server saw them. */
const startTimes = (server: TestServer) => [...server.starts.values()].flat().sort((a, b) => a - b);

/** A root linking to `count` pages /p0.. */
function linkedPages(count: number, route: (i: number) => Route = (i) => html(`page ${i}`)): Record<string, Route> {
  const paths = Array.from({ length: count }, (_, i) => `/p${i}`);
  return {
    '/': html(paths.map((path) => `<a href="${path}">${path}</a>`).join(' ')),
    ...Object.fromEntries(paths.map((path, i) => [path, route(i)])),
  };
}

/** Wraps a handler to record each request's [start, end] window on the shared performance.now clock. */
function timed(handler: Handler, windows: { path: string; start: number; end: number }[]): Handler {
  return (req, res, path) => {
    const start = performance.now();
    res.on('finish', () => windows.push({ path, start, end: performance.now() }));
    return handler(req, res, path);
  };
}

/** The most windows open at one instant. */
function maxOverlap(windows: { start: number; end: number }[]): number {
  const events = windows.flatMap((w) => [
    [w.start, 1],
    [w.end, -1],
  ]);
  // Ends before starts at the same instant: touching windows do not overlap.
  events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, delta] of events) {
    open += delta!;
    most = Math.max(most, open);
  }
  return most;
}

describe('Crawl-delay from robots.txt', () => {
  let site: TestServer;
  const db = tmp.path('crawl-delay.sqlite');

  beforeAll(async () => {
    site = await servers.serve(routes({ '/robots.txt': text('User-agent: *\nCrawl-delay: 1\n'), ...linkedPages(2) }));
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '-c', '4']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('keeps a gap of 1 s between the starts of page requests', () => {
    expect(site.totalHits()).toBe(4); // robots.txt, / and two pages
    expect(site.maxInFlight).toBe(1);
    const pageStarts = sendTimes(db, site, notRobots);
    expect(pageStarts).toHaveLength(3);
    for (const gap of gapsBetween(pageStarts)) expect(gap).toBeGreaterThanOrEqual(1000 - ROUNDING_MS);
  });

  it("counts robots.txt's own request: the first page starts 1 s after it", () => {
    expect(startTimes(site)[0]).toBe(site.starts.get('/robots.txt')![0]!);
    expect(sentAt(db, site, '/') - sentAt(db, site, '/robots.txt')).toBeGreaterThanOrEqual(1000 - ROUNDING_MS);
  });
});

describe('--delay', () => {
  let site: TestServer;
  const db = tmp.path('delay.sqlite');

  beforeAll(async () => {
    // A Crawl-delay far longer than --delay, so that whichever paced the crawl shows however busy the machine.
    site = await servers.serve(routes({ '/robots.txt': text('User-agent: *\nCrawl-delay: 5\n'), ...linkedPages(3) }));
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '-c', '4', '--delay', '300']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('overrides Crawl-delay: its own gap between page requests, and a faster crawl than Crawl-delay allows', () => {
    expect(startTimes(site)).toHaveLength(5); // robots.txt, / and three pages
    const pageStarts = sendTimes(db, site, notRobots);
    expect(pageStarts).toHaveLength(4);
    for (const gap of gapsBetween(pageStarts)) {
      expect(gap).toBeGreaterThanOrEqual(300 - ROUNDING_MS);
      // Crawl-delay: 5 would have kept each gap at 5 s at least.
      expect(gap).toBeLessThan(5000);
    }
    expect(readArchive(db, "SELECT count(*) AS n FROM pages WHERE kind = 'page' AND status = 200")).toEqual([{ n: 4 }]);
  });

  it("counts robots.txt's own request: the first page starts 300 ms after it", () => {
    expect(startTimes(site)[0]).toBe(site.starts.get('/robots.txt')![0]!);
    expect(sentAt(db, site, '/') - sentAt(db, site, '/robots.txt')).toBeGreaterThanOrEqual(300 - ROUNDING_MS);
  });
});

describe('--per-host', () => {
  it('caps requests in flight per origin while origins are worked in parallel', async () => {
    const windows: { path: string; start: number; end: number }[] = [];
    const slow = () => linkedPages(10, (i) => ({ ...html(`slow ${i}`), delayMs: 100 }));
    const a = await servers.serve(timed(routes(slow()), windows));
    const b = await servers.serve(timed(routes(slow()), windows));
    const db = tmp.path('per-host.sqlite');
    const result = await runCli(['crawl', a.url, b.url, '--db', db, '-q', '-c', '8', '--per-host', '2']);
    expect(result.code, result.stderr).toBe(0);
    // robots.txt (404), / and ten pages on each.
    expect(a.totalHits()).toBe(12);
    expect(b.totalHits()).toBe(12);
    expect(a.maxInFlight).toBe(2);
    expect(b.maxInFlight).toBe(2);
    // Both hosts had their two requests in flight at the same time.
    expect(windows).toHaveLength(24);
    expect(maxOverlap(windows)).toBe(4);
    expect(readArchive(db, "SELECT count(*) AS n FROM pages WHERE kind = 'page' AND status = 200")).toEqual([{ n: 22 }]);
  });
});

describe('429 with Retry-After', () => {
  it('pauses only the host that asked, then fetches the page again', async () => {
    let answered429At = 0;
    const aPages = ['/a1', '/a2', '/a3', '/a4'];
    const aTable = routes({
      '/': html('<a href="/limited">limited</a> ' + aPages.map((path) => `<a href="${path}">${path}</a>`).join(' ')),
      '/limited': html('finally'),
      ...Object.fromEntries(aPages.map((path) => [path, { ...html(path), delayMs: 150 }])),
    });
    // The 429 goes out once A's other slot holds a page, and that page is answered 800 ms after it came: until
    // the crawler has heard of the 429 (however late a busy machine lets it), A has no free slot, so no request
    // of A's goes out in between; and well before the pause ends, so a pause not kept shows.
    let pageArrived!: () => void;
    const pageHeld = new Promise<void>((resolve) => (pageArrived = resolve));
    let held = false;
    const a = await servers.serve(async (req, res, path) => {
      if (aPages.includes(path) && !held) {
        held = true;
        pageArrived();
        await sleep(800);
        return aTable(req, res, path);
      }
      if (path !== '/limited' || answered429At > 0) return aTable(req, res, path);
      await Promise.race([pageHeld, sleep(10_000)]);
      // Noted before the answer goes out: the crawler hears of it later, and pauses from then.
      answered429At = Date.now();
      res.writeHead(429, { 'retry-after': '2' }).end('slow down');
    });
    const b = await servers.serve(routes(linkedPages(8, (i) => ({ ...html(`b ${i}`), delayMs: 250 }))));
    const db = tmp.path('retry-after.sqlite');
    const result = await runCli(['crawl', a.url, b.url, '--db', db, '-q', '-c', '6', '--per-host', '2', '--retry-delay', '10']);
    expect(result.code, result.stderr).toBe(0);
    expect(answered429At).toBeGreaterThan(0);

    // Host A: no request was sent in the two seconds after the 429 was answered (the crawler heard of it no earlier).
    const afterPause = sendTimes(db, a).filter((at) => at > answered429At);
    expect(afterPause.length).toBeGreaterThanOrEqual(2); // the retry, and pages that were left waiting
    for (const at of afterPause) expect(at - answered429At).toBeGreaterThanOrEqual(2000 - ROUNDING_MS);
    // Some of A's pages were still waiting when the 429 came: the pause, not a lack of work, held them back.
    expect(aPages.filter((path) => sentAt(db, a, path) > answered429At).length).toBeGreaterThanOrEqual(1);

    // Host B kept being fetched meanwhile.
    const bDuringPause = sendTimes(db, b).filter((at) => at > answered429At && at < answered429At + 2000);
    expect(bDuringPause.length).toBeGreaterThanOrEqual(2);

    expect(a.hitCount('/limited')).toBe(2);
    expect(readArchive(db, 'SELECT state, tries FROM urls WHERE url = ?', abs(a, '/limited'))).toEqual([{ state: 'done', tries: 2 }]);
    expect(readArchive(db, 'SELECT status FROM pages WHERE url = ?', abs(a, '/limited'))).toEqual([{ status: 200 }]);
    for (const path of aPages) expect(a.hitCount(path), path).toBe(1);
  });
});
