import { afterAll, describe, expect, it } from 'vitest';
import { HostScheduler, type NextTask, type Task } from '../../src/pipeline/politeness/host-scheduler.js';
import { RobotsBook, ROBOTS_RETRY_MS } from '../../src/pipeline/robots/robots-book.js';
import { robotsRules } from '../../src/pipeline/robots/robots-rules.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { tempDir } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

let files = 0;
function frontierWith(urls: string[]) {
  const db = openArchive(tmp.path(`s${(files += 1)}.sqlite`), 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(urls.map((url) => ({ url, key: url, origin: new URL(url).origin })));
  return frontier;
}

const isTask = (next: NextTask): next is Task => typeof next !== 'string' && !('wakeAt' in next);

/** The scheduler's next task, once the frontier calls it started have answered. */
async function nextOf(scheduler: HostScheduler, now: number): Promise<NextTask> {
  for (let round = 0; round < 20; round += 1) {
    const next = scheduler.next(now);
    if (isTask(next) || !scheduler.waitingOnFrontier) return next;
    await new Promise<void>((resolve) => scheduler.onSettled(resolve));
  }
  throw new Error('the frontier never answered');
}
const originOf = (next: NextTask) => (isTask(next) ? (next.type === 'url' ? next.claim.origin : `robots:${next.origin}`) : next);

describe('HostScheduler', () => {
  it('alternates between origins with work', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2', 'http://b/1', 'http://b/2']);
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 10 });
    const started: unknown[] = [];
    for (let i = 0; i < 4; i += 1) started.push(originOf(await nextOf(scheduler, 0)));
    expect(started).toEqual(['http://a', 'http://b', 'http://a', 'http://b']);
    expect(await nextOf(scheduler, 0)).toBe('empty');
  });

  it('holds each origin to --per-host requests in flight', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2', 'http://a/3']);
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 2 });
    const first = await nextOf(scheduler, 0);
    expect(isTask(await nextOf(scheduler, 0))).toBe(true);
    expect(await nextOf(scheduler, 0)).toBe('empty');
    scheduler.finished(first as Task);
    expect(isTask(await nextOf(scheduler, 0))).toBe(true);
  });

  it('keeps --delay between request starts on one origin, and says when to wake', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2']);
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 5, delayMs: 300 });
    expect(isTask(await nextOf(scheduler, 1_000))).toBe(true);
    expect(await nextOf(scheduler, 1_100)).toEqual({ wakeAt: 1_300 });
    expect(isTask(await nextOf(scheduler, 1_300))).toBe(true);
  });

  it('fetches robots.txt first, then paces by its Crawl-delay', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2']);
    const book = new RobotsBook(true);
    const scheduler = new HostScheduler(frontier, book, { perHost: 5 });
    const robots = await nextOf(scheduler, 0);
    expect(robots).toEqual({ type: 'robots', origin: 'http://a' });
    expect(await nextOf(scheduler, 0)).toBe('empty');
    book.set(
      'http://a',
      robotsRules('http://a/robots.txt', { status: 200, body: Buffer.from('User-agent: *\nCrawl-delay: 2\n') }, 'crawlite'),
    );
    scheduler.finished(robots as Task);
    expect(await nextOf(scheduler, 1_000)).toEqual({ wakeAt: 2_000 });
    expect(originOf(await nextOf(scheduler, 2_000))).toBe('http://a');
  });

  it('pauses one origin without holding up another', async () => {
    const frontier = frontierWith(['http://a/1', 'http://b/1']);
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 5 });
    scheduler.pause('http://a', 5_000, 0);
    expect(originOf(await nextOf(scheduler, 10))).toBe('http://b');
    expect(await nextOf(scheduler, 10)).toEqual({ wakeAt: 5_000 });
  });

  it('claims the next URLs while half of the last claim is left, so a free slot never waits on the frontier', async () => {
    const frontier = frontierWith(Array.from({ length: 40 }, (_, i) => `http://a/${i}`));
    // Eight claimed at a time (CLAIM_AHEAD_MIN).
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 8 });
    const take = (next: NextTask) => {
      expect(isTask(next)).toBe(true);
      scheduler.finished(next as Task);
    };
    take(await nextOf(scheduler, 0));
    for (let i = 0; i < 4; i += 1) take(scheduler.next(0));
    // Three left of the first eight: the next eight are on their way.
    expect(scheduler.waitingOnFrontier).toBe(true);
    await new Promise<void>((resolve) => scheduler.onSettled(resolve));
    for (let i = 0; i < 3 + 8; i += 1) take(scheduler.next(0));
  });

  it('stops claiming at --max-pages, counting pages fetched before', async () => {
    const db = openArchive(tmp.path('fetched-before.sqlite'), 'create');
    const frontier = new SqliteFrontier(db);
    frontier.addRoots(['http://a/0', 'http://a/1', 'http://a/2', 'http://a/3'].map((url) => ({ url, key: url, origin: 'http://a' })));
    db.prepare("UPDATE url SET state = 'done' WHERE url = 'http://a/0'").run();
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 5, maxPages: 3 });
    expect(isTask(await nextOf(scheduler, 0))).toBe(true);
    expect(isTask(await nextOf(scheduler, 0))).toBe(true);
    expect(await nextOf(scheduler, 0)).toBe('empty');
    expect(scheduler.limitReached).toBe(true);
    db.close();
  });

  it('asks again for a robots.txt that was unavailable, once ROBOTS_RETRY_MS has passed, and only then', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2']);
    const book = new RobotsBook(true);
    const scheduler = new HostScheduler(frontier, book, { perHost: 1 });
    const robots = await nextOf(scheduler, 0);
    expect(robots).toEqual({ type: 'robots', origin: 'http://a' });
    const unavailable = robotsRules('http://a/robots.txt', { status: 503 }, 'crawlite');
    expect(book.set('http://a', unavailable, 0)).toBe(false);
    scheduler.finished(robots as Task);
    // Meanwhile URLs are claimed, to be skipped unrequested.
    const first = await nextOf(scheduler, 1);
    expect(originOf(first)).toBe('http://a');
    scheduler.finished(first as Task);
    expect(await nextOf(scheduler, ROBOTS_RETRY_MS)).toEqual({ type: 'robots', origin: 'http://a' });
    // It answered this time: the caller is told so, to queue what the outage refused.
    expect(book.set('http://a', robotsRules('http://a/robots.txt', { status: 404 }, 'crawlite'), ROBOTS_RETRY_MS)).toBe(true);
  });

  it('keeps rules from a robots.txt that answered for the whole run', async () => {
    const frontier = frontierWith(['http://a/1', 'http://a/2']);
    const book = new RobotsBook(true);
    book.set('http://a', robotsRules('http://a/robots.txt', { status: 404 }, 'crawlite'));
    const scheduler = new HostScheduler(frontier, book, { perHost: 1 });
    const first = await nextOf(scheduler, 10 * ROBOTS_RETRY_MS);
    expect(first).toMatchObject({ type: 'url' });
  });

  it('past --max-pages, still starts requisites and gives back pages claimed ahead', async () => {
    const db = openArchive(tmp.path('requisites.sqlite'), 'create');
    const frontier = new SqliteFrontier(db);
    frontier.addRoots([
      { url: 'http://a/1', key: 'http://a/1', origin: 'http://a' },
      { url: 'http://a/2', key: 'http://a/2', origin: 'http://a' },
      { url: 'http://a/1.png', key: 'http://a/1.png', origin: 'http://a', kind: 'requisite' },
      { url: 'http://a/3', key: 'http://a/3', origin: 'http://a' },
      { url: 'http://a/2.png', key: 'http://a/2.png', origin: 'http://a', kind: 'requisite' },
    ]);
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 5, maxPages: 1 });
    const started: unknown[] = [];
    for (let i = 0; i < 4; i += 1) {
      const next = await nextOf(scheduler, 0);
      started.push(isTask(next) && next.type === 'url' ? next.claim.url : next);
    }
    expect(started).toEqual(['http://a/1', 'http://a/1.png', 'http://a/2.png', 'empty']);
    expect(scheduler.limitReached).toBe(true);
    const queued = db.prepare<[], { url: string }>("SELECT url FROM url WHERE state = 'queued' ORDER BY url").all();
    expect(queued.map((row) => row.url)).toEqual(['http://a/2', 'http://a/3']);
    db.close();
  });
});
