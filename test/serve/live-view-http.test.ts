import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveSnapshot } from '../../src/storage/control/index.js';
import { tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { addLiveExclusion, addUrls, applyRequest, removeCrawlLive, writeCrawlLive } from '../support/live-rows.js';
import { get } from '../support/serve.js';
import { startUiServer, type UiServer } from '../support/ui-server.js';
import { sleep } from '../support/wait.js';

// What /api/live tells of a crawl, from the rows a running crawl writes (here written by the test):
// its state from crawl_live and how fresh that row is, the queue by host, errors and skips by reason,
// the pages just stored and how many per 5 s, the live exclusions and the requests with their outcomes.

const tmp = tempDir();
let db: string;
let ui: UiServer;
let pages: string[];

beforeAll(async () => {
  const site = await startLinkedSite(4);
  try {
    db = tmp.path('view.sqlite');
    expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
    pages = [site.url, ...Array.from({ length: 4 }, (_, i) => `${site.url}p/${i}`)];
  } finally {
    await site.close();
  }
  ui = await startUiServer(db);
}, 60_000);

afterAll(async () => {
  await ui?.close();
  tmp.cleanup();
});

/** A snapshot read after the last one is out of date (a second at most). */
async function view(): Promise<LiveSnapshot> {
  await sleep(1000);
  const answer = await get(ui.url, '/api/live');
  expect(answer.status, answer.body).toBe(200);
  expect(answer.headers['content-type']).toBe('application/json');
  return JSON.parse(answer.body) as LiveSnapshot;
}

describe('the live view of a crawl', () => {
  it('tells whether a crawl runs, is paused and why, has ended, or is gone without a word', async () => {
    // The crawl that made the archive wrote its live row as it ended.
    expect((await view()).crawl).toMatchObject({ state: 'ended', running: false, inFlight: 0 });
    removeCrawlLive(db);
    expect((await view()).crawl).toMatchObject({ state: 'never', running: false });
    writeCrawlLive(db, { state: 'running', in_flight: 7, concurrency: 8, per_host: 3, delay_ms: 200 });
    expect((await view()).crawl).toMatchObject({ state: 'running', running: true, inFlight: 7, concurrency: 8, perHost: 3, delayMs: 200 });
    writeCrawlLive(db, { state: 'paused', paused_by: 'disk', in_flight: 0 });
    expect((await view()).crawl).toMatchObject({ state: 'paused', running: true, pausedBy: 'disk' });
    // Not written for more than 5 s: killed.
    writeCrawlLive(db, { state: 'running', in_flight: 4, updated_at: new Date(Date.now() - 6000).toISOString() });
    expect((await view()).crawl).toMatchObject({ state: 'gone', running: false, inFlight: 0 });
    writeCrawlLive(db, { state: 'ended' });
    expect((await view()).crawl).toMatchObject({ state: 'ended', running: false });
  });

  it('shows the pages just stored, newest first, and counts them per 5 s', async () => {
    const { recent, rate } = await view();
    // robots.txt is stored as a response too.
    expect(recent.map((page) => page.url).sort()).toEqual([...pages, `${pages[0]}robots.txt`].sort());
    expect(recent.filter((page) => pages.includes(page.url)).every((page) => page.status === 200)).toBe(true);
    expect([...recent].sort((a, b) => (a.fetchedAt < b.fetchedAt ? 1 : -1))).toEqual(recent);
    expect(rate.bucketSeconds).toBe(5);
    expect(rate.counts).toHaveLength(60);
    // The crawl ended seconds ago: all its pages (and robots.txt) in the last minute's buckets.
    expect(rate.counts.slice(-12).reduce((a, b) => a + b, 0)).toBe(pages.length + 1);
  });

  it('counts the queue by host, most first, and errors and skips by reason', async () => {
    addUrls(
      db,
      Array.from({ length: 30 }, (_, i) => `http://big.test/${i}`),
    );
    addUrls(
      db,
      Array.from({ length: 12 }, (_, i) => `http://small.test/${i}`),
    );
    addUrls(
      db,
      Array.from({ length: 4 }, (_, i) => `http://small.test/gone/${i}`),
      'failed',
      'http_404',
    );
    addUrls(
      db,
      Array.from({ length: 6 }, (_, i) => `http://small.test/cal?d=${i}`),
      'skipped',
      'excluded_live',
    );
    const { queue, problems } = await view();
    expect(queue).toEqual({
      hosts: [
        { origin: 'http://big.test', count: 30 },
        { origin: 'http://small.test', count: 12 },
      ],
      total: 42,
      atLeast: false,
      limit: 100_000,
    });
    expect(problems.reasons).toEqual(
      expect.arrayContaining([
        { state: 'skipped', code: 'excluded_live', count: 6 },
        { state: 'failed', code: 'http_404', count: 4 },
      ]),
    );
    expect(problems.reasons[0]).toEqual({ state: 'skipped', code: 'excluded_live', count: 6 });
  });

  it('lists the live exclusions and the last requests with their outcomes once applied', async () => {
    addLiveExclusion(db, '[?&]d=');
    const token = /data-token="([^"]+)"/.exec((await get(ui.url, '/live')).body)![1]!;
    const sent = await get(ui.url, '/api/live/control', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ui.url, 'x-crawlite-token': token },
      body: JSON.stringify({ command: 'pause' }),
    });
    expect(sent.status, sent.body).toBe(202);
    const { id } = JSON.parse(sent.body) as { id: number };
    const waiting = await view();
    expect(waiting.exclusions).toEqual([{ pattern: '[?&]d=', addedAt: expect.any(String) }]);
    expect(waiting.requests[0]).toMatchObject({ id, command: 'pause', requestedBy: 'serve', appliedAt: null, outcome: null });
    applyRequest(db, id, 'paused');
    expect((await view()).requests[0]).toMatchObject({ id, appliedAt: expect.any(String), outcome: 'paused' });
  });

  it('counts at most 100,000 queued URLs, the first queued, and says the count is a floor', async () => {
    addUrls(
      db,
      Array.from({ length: 100_000 }, (_, i) => `http://huge.test/${i}`),
    );
    const { queue } = await view();
    expect(queue).toMatchObject({ total: 100_000, atLeast: true, limit: 100_000 });
    expect(queue.hosts[0]!.origin).toBe('http://huge.test');
    // Counted in the order they were queued, not by name: the hosts queued first are all there.
    expect(queue.hosts).toEqual(
      expect.arrayContaining([
        { origin: 'http://small.test', count: 12 },
        { origin: 'http://big.test', count: 30 },
      ]),
    );
    expect(queue.hosts.reduce((sum, host) => sum + host.count, 0)).toBeLessThanOrEqual(100_000);
  }, 30_000);
});
