import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_WORDS } from '../../src/storage/query/search-limits.js';
import { SEARCHES_RUNNING, SEARCHES_WAITING } from '../../src/serve/search-mount.js';
import { tempDir } from '../support/archive.js';
import { childPids, isRunning } from '../support/process-tree.js';
import { get, startServe, type Fetched } from '../support/serve.js';
import { prefixQuery, TEXT_SITE, textArchive } from '../support/text-archive.js';
import { sleep, waitFor } from '../support/wait.js';

// A search for many prefixes is seconds of SQLite. In `serve` it runs in a process of its
// own with a time limit, so replay and the UI keep answering meanwhile; a query longer
// than a person types is refused, and searches at once are bounded (any web page can
// send them, an <img> each).

const tmp = tempDir();
let db: string;
/** Seconds of SQLite on 12,000 pages (2.5 s of CPU here, 4 s or more on a loaded 2-CPU machine), within the size limits. */
const SLOW = `/search?mode=fts&q=${encodeURIComponent(prefixQuery(MAX_SEARCH_WORDS))}`;
const REPLAY_PAGE = `/20260101000000/${TEXT_SITE}p/1`;
const CAPTURE_PAGE = `/capture?url=${encodeURIComponent(`${TEXT_SITE}p/1`)}`;
const searchError = (page: Fetched) => /<p class="error" id="search-error">([^<]*)<\/p>/.exec(page.body)?.[1];

beforeAll(() => {
  db = textArchive(tmp.path('text.sqlite'), 12_000);
}, 120_000);

afterAll(() => tmp.cleanup());

describe('search in serve', () => {
  it('a long search holds up neither replay nor the UI: both are answered before it ends', async () => {
    const serve = await startServe(db);
    try {
      const order: string[] = [];
      const done = (name: string) => (page: Fetched) => {
        order.push(name);
        return page;
      };
      const search = get(serve.ui, SLOW).then(done('search'));
      // The search is under way (a crawlite that searched on its own thread is stuck inside SQLite by now).
      await sleep(300);
      const [replay, capture] = await Promise.all([
        get(serve.replay, REPLAY_PAGE).then(done('replay')),
        get(serve.ui, CAPTURE_PAGE).then(done('capture')),
      ]);
      const searched = await search;
      expect(order.slice(2)).toEqual(['search']);
      expect(replay.status).toBe(200);
      expect(capture.status).toBe(200);
      // A search that ends in time shows its hits as ever.
      const found = await get(serve.ui, '/search?q=page');
      expect(found.status).toBe(200);
      expect(found.body).toContain('<mark>page</mark>');
      // Within its default limit of 5 s, or stopped there (a loaded machine).
      if (searched.status !== 200)
        expect([searched.status, searchError(searched)]).toEqual([
          503,
          'search stopped after 5 s: narrow the query (or raise serve --search-timeout)',
        ]);
    } finally {
      await serve.stop();
    }
  });

  it('stops a search at --search-timeout with a 503 page saying so, and leaves no process behind', async () => {
    const serve = await startServe(db, ['--search-timeout', '500']);
    try {
      const page = await get(serve.ui, SLOW);
      expect(page.status).toBe(503);
      expect(searchError(page)).toBe('search stopped after 500 ms: narrow the query (or raise serve --search-timeout)');
      expect(page.body).toContain('<form id="search"');
      await waitFor('the stopped search process to be gone', () => childPids(serve.pid).length === 0, 20_000);
    } finally {
      await serve.stop();
    }
  });

  it("refuses the issue's query (1,250 OR'd prefixes, 12 KB of URL) with 400, before any search process starts", async () => {
    const serve = await startServe(db);
    try {
      const page = await get(serve.ui, `/search?mode=fts&q=${encodeURIComponent(prefixQuery(1250))}`);
      expect(page.status).toBe(400);
      expect(searchError(page)).toBe('search query too long: 7,496 characters, at most 1,000; narrow it');
      expect(page.body).toContain('<form id="search"');
      expect(childPids(serve.pid)).toEqual([]);
    } finally {
      await serve.stop();
    }
  });

  it(`runs at most ${SEARCHES_RUNNING} searches at once, queues ${SEARCHES_WAITING}, and refuses the rest with 503`, async () => {
    // Long enough that no search ends before all the requests are in (they take a fraction of a second on a loaded machine).
    const serve = await startServe(db, ['--search-timeout', '2000']);
    try {
      const flood = 20;
      let most = 0;
      let watching = true;
      const watch = (async () => {
        while (watching) {
          most = Math.max(most, childPids(serve.pid).filter(isRunning).length);
          await sleep(10);
        }
      })();
      const pages = await Promise.all(Array.from({ length: flood }, () => get(serve.ui, SLOW)));
      watching = false;
      await watch;
      const busy = pages.filter((page) => page.status === 503 && searchError(page)?.startsWith('too many searches at once'));
      expect(busy).toHaveLength(flood - SEARCHES_RUNNING - SEARCHES_WAITING);
      expect(searchError(busy[0]!)).toBe(
        `too many searches at once (${SEARCHES_RUNNING} running, ${SEARCHES_WAITING} waiting): try again in a moment`,
      );
      // The others ran, in turn: found in time or stopped at the limit.
      const ran = pages.filter(
        (page) =>
          page.status === 200 || searchError(page) === 'search stopped after 2 s: narrow the query (or raise serve --search-timeout)',
      );
      expect(ran).toHaveLength(SEARCHES_RUNNING + SEARCHES_WAITING);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(SEARCHES_RUNNING);
    } finally {
      await serve.stop();
    }
  });

  it('ends the search processes it runs when it is stopped (SIGINT)', async () => {
    const serve = await startServe(db);
    const search = get(serve.ui, SLOW).catch(() => undefined);
    await waitFor('the search process to start', () => childPids(serve.pid).length > 0, 15_000);
    const worker = childPids(serve.pid)[0]!;
    const run = await serve.stop();
    expect(run.code).toBe(0);
    await search;
    await waitFor('the search process to be gone', () => !isRunning(worker), 5000);
  });
});
