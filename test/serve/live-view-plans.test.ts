import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_VIEW_SQL } from '../../src/storage/control/live-view.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { addUrls } from '../support/live-rows.js';

// The live page reads a snapshot every second while a crawl runs, on archives of millions of URLs: each
// of its statements walks an index under a LIMIT, never the url or response table whole (SQLite's plan).

const tmp = tempDir();
let db: string;

beforeAll(async () => {
  const site = await startLinkedSite(3);
  try {
    db = tmp.path('plans.sqlite');
    expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  } finally {
    await site.close();
  }
  addUrls(
    db,
    Array.from({ length: 50 }, (_, i) => `http://queued.test/${i}`),
  );
  addUrls(
    db,
    Array.from({ length: 20 }, (_, i) => `http://queued.test/gone/${i}`),
    'failed',
    'http_404',
  );
}, 60_000);

afterAll(() => tmp.cleanup());

const plan = (sql: string) =>
  readArchive<{ detail: string }>(db, `EXPLAIN QUERY PLAN ${sql}`, ...Array.from(sql.match(/\?/g) ?? [], () => 1)).map((row) => row.detail);

describe("the live view's statements", () => {
  it('read url and response through an index only, each under a LIMIT', () => {
    expect(Object.keys(LIVE_VIEW_SQL).length).toBeGreaterThan(8);
    for (const [name, sql] of Object.entries(LIVE_VIEW_SQL)) {
      const steps = plan(sql);
      // A SCAN of a big table is a read of every row; a SEARCH, or a SCAN of a (partial) index, is bounded by the LIMIT.
      const whole = steps.filter((step) => /^SCAN (url|response|capture|u|r)\b/.test(step) && !/USING (COVERING )?INDEX/.test(step));
      expect([name, whole], steps.join(' | ')).toEqual([name, []]);
      if (/\b(url|response)\b/.test(sql) && name !== 'lastRun') expect([name, /LIMIT|json_each/.test(sql)]).toEqual([name, true]);
    }
    expect(plan(LIVE_VIEW_SQL.queueByHost).join(' | ')).toContain('COVERING INDEX url_queued_origin');
    // Past the bound, the URLs queued first, in id order, with no sort.
    expect(plan(LIVE_VIEW_SQL.queueByHostFirst).slice(0, 2).join(' | ')).toBe(
      'CO-ROUTINE (subquery-1) | SEARCH url USING INDEX url_state (state=?)',
    );
    expect(plan(LIVE_VIEW_SQL.recentFetches).join(' | ')).toContain('INDEX response_run');
  });
});
