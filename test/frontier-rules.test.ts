import { afterAll, expect, it } from 'vitest';
import { revise, type Find, type KnownUrl } from '../src/pipeline/frontier-rules.js';
import type { ClaimedUrl } from '../src/pipeline/ports.js';
import { openArchive } from '../src/storage/archive/open-archive.js';
import { CrawlRecord } from '../src/storage/crawl-state/crawl-record.js';
import { SqlitePageSink } from '../src/storage/crawl-state/sqlite-page-sink.js';
import { tempDir } from './support/archive.js';
import { discovered } from './support/crawl-items.js';

// The frontier's rules are stated once: `revise` over plain values, and the SQL built from the same
// module that the SQLite sink runs. Both must say the same of every known row and every find.
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const MAX_DEPTH = 3;
const ROWS: KnownUrl[] = [
  { state: 'queued', kind: 'page', depth: 3, code: null, crawl: 1 },
  { state: 'skipped', kind: 'page', depth: 3, code: 'max_depth', crawl: 1 },
  { state: 'skipped', kind: 'page', depth: 3, code: 'nofollow', crawl: 1 },
  { state: 'skipped', kind: 'page', depth: 3, code: 'out_of_scope', crawl: 1 },
  { state: 'done', kind: 'page', depth: 3, code: null, crawl: 1 },
  { state: 'done', kind: 'requisite', depth: 3, code: null, crawl: 1 },
  { state: 'failed', kind: 'page', depth: 3, code: 'http_500', crawl: 1 },
];
const FINDS: Find[] = [2, 3, 4].flatMap((depth) =>
  [true, false].flatMap((queueable) => [1, 2].map((crawl) => ({ depth, queueable, crawl }))),
);

it('the SQLite sink revises a known URL exactly as revise() says, and counts it in newUrls when it does', async () => {
  const path = tmp.path('rules.sqlite');
  const db = openArchive(path, 'create');
  const record = new CrawlRecord(db);
  const sinks = new Map(
    [1, 2].map((crawl) => [crawl, new SqlitePageSink(db, path, record.startRun({}, new Date(), crawl), { crawl, maxDepth: MAX_DEPTH })]),
  );
  const from = 'http://s.test/from';
  const fromId = Number(
    db
      .prepare("INSERT INTO url (url, origin, kind, state, depth, redirect_hops) VALUES (?, 'http://s.test', 'page', 'fetching', 0, 0)")
      .run(from).lastInsertRowid,
  );
  const claim: ClaimedUrl = {
    id: fromId,
    url: from,
    key: from,
    origin: 'http://s.test',
    kind: 'page',
    depth: 0,
    redirectHops: 0,
    tries: 0,
    lease: { token: 'run', expiresAt: Infinity },
  };
  const add = db.prepare(
    'INSERT INTO url (url, origin, kind, state, depth, redirect_hops, error_code, crawl) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
  );
  const read = db.prepare<[string], KnownUrl>('SELECT state, kind, depth, error_code AS code, crawl FROM url WHERE url = ?');

  const disagreements: string[] = [];
  let n = 0;
  for (const row of ROWS) {
    for (const find of FINDS) {
      const key = `http://s.test/${(n += 1)}`;
      add.run(key, 'http://s.test', row.kind, row.state, row.depth, row.code, row.crawl);
      const found = discovered(key, {
        depth: find.depth,
        target: row.kind,
        ...(find.queueable ? {} : { skip: { code: 'out_of_scope', message: 'out' } }),
      });
      const { newUrls } = await sinks.get(find.crawl!)!.commit({ claim, state: 'done', tries: 1, discovered: [found] });
      const expected = revise(row, find, MAX_DEPTH);
      const stored = read.get(key);
      if (JSON.stringify(stored) !== JSON.stringify(expected ?? row) || newUrls !== (expected ? 1 : 0)) {
        disagreements.push(
          `${JSON.stringify(row)} found ${JSON.stringify(find)}: sink ${JSON.stringify(stored)} (${newUrls}), rules ${JSON.stringify(expected ?? row)}`,
        );
      }
    }
  }
  db.close();
  expect(disagreements).toEqual([]);
  expect(n).toBe(ROWS.length * FINDS.length);
});
