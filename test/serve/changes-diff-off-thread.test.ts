import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFF_LIMITS } from '../../src/serve/diff-mount.js';
import { tempDir } from '../support/archive.js';
import { largePageArchive } from '../support/large-page-archive.js';
import { childPids } from '../support/process-tree.js';
import { get, startServe, type Fetched } from '../support/serve.js';
import { startUiServer } from '../support/ui-server.js';
import { sleep } from '../support/wait.js';

// The changes page's text diff of a page of tens of megabytes is seconds of parsing. In serve it
// runs in a process of its own (as a search does), bounded in the bytes it reads and the text it
// compares, with a deadline; replay and the UI keep answering meanwhile.

const tmp = tempDir();
const db = tmp.path('large.sqlite');
/** Each crawl's capture of the large page: 40 MB of HTML. */
const LARGE = 40_000_000;
let large: string;
const diffPath = () => `/changes?${new URLSearchParams({ url: large, from: '1', to: '2' }).toString()}`;

beforeAll(async () => {
  large = await largePageArchive(db, LARGE);
}, 120_000);

afterAll(() => tmp.cleanup());

describe('the text diff of a large page', () => {
  it('holds up neither replay nor the UI: both answer while four diffs run, and each diff says what it left out', async () => {
    const serve = await startServe(db);
    try {
      const order: string[] = [];
      let diffsRunning = 0;
      const done = (name: string) => (page: Fetched) => {
        order.push(name);
        return page;
      };
      const diffs = Array.from({ length: 4 }, () => get(serve.ui, diffPath()).then(done('diff')));
      // The diffs are under way (a serve that diffed on its own thread is inside the first parse by now).
      await sleep(300);
      const small = large.replace(/large$/, 'small');
      const [replay, capture] = await Promise.all([
        get(serve.replay, `/20300101000000/${small}`).then((page) => {
          // Seen as replay answers: a diff's process still runs.
          diffsRunning = childPids(serve.pid).length;
          return done('replay')(page);
        }),
        get(serve.ui, `/capture?url=${encodeURIComponent(small)}`).then(done('capture')),
      ]);
      const pages = await Promise.all(diffs);
      expect(order.slice(0, 2).sort()).toEqual(['capture', 'replay']);
      expect(diffsRunning).toBeGreaterThan(0);
      expect([replay.status, capture.status]).toEqual([200, 200]);
      for (const page of pages) {
        expect(page.status).toBe(200);
        // Bounded: 4 MiB of each 40 MB capture read, 256 K characters of each text compared, and the page says so.
        expect(page.body).toContain(`The first 4.0 MiB of each capture are read (crawl 1: 38.1 MiB, crawl 2: 38.1 MiB).`);
        expect(page.body).toContain(`The first ${DIFF_LIMITS.textChars.toLocaleString('en-US')} characters of each text are compared.`);
        expect(page.body).toContain(
          '<div class="del">-Paragraph 0 says the same thing in every crawl, but this one was written for version 1.</div>',
        );
        expect(page.body).toContain(
          '<div class="add">+Paragraph 0 says the same thing in every crawl, but this one was written for version 2.</div>',
        );
        expect(page.body.length).toBeLessThan(1024 * 1024);
      }
    } finally {
      await serve.stop();
    }
  }, 180_000);

  it('is cut short at its deadline, and the page says so', async () => {
    // A deadline no process can meet: the fork alone takes longer.
    const ui = await startUiServer(db, { diffTimeoutMs: 50 });
    try {
      const page = await get(ui.url, diffPath());
      expect(page.status).toBe(503);
      expect(page.body).toContain(
        '<p class="error" id="diff-error">The comparison was cut short after 0.05 s, its time limit: crawlite diff --url compares the whole texts.</p>',
      );
    } finally {
      await ui.close();
    }
  });
});
