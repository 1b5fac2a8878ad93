import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/storage/archive/migrate.js';
import { archiveOverview } from '../../src/storage/reader/archive-overview.js';
import { tempDir } from '../support/archive.js';

// The overview's hosts on an archive built row by row: the hosts crawled by pages fetched, a host
// with many more URLs seen but nothing fetched listed apart, and the totals beyond the rows shown.

const tmp = tempDir();
let db: Database.Database;

/** Per host: URLs with a response, URLs failed, URLs only seen (skipped or queued). */
const HOSTS: Array<[origin: string, fetched: number, failed: number, only: number]> = [
  ['https://small.example', 2, 0, 40],
  ['https://site.example', 9, 1, 3],
  ['https://down.example', 0, 4, 0],
  ['https://docs.example', 2, 0, 1],
  ['https://bugs.example', 0, 0, 60],
  ['https://cdn.example', 0, 0, 5],
  ['https://one.example', 0, 0, 1],
];

beforeAll(() => {
  const path = tmp.path('hosts.sqlite');
  const writer = new Database(path);
  migrate(writer, loadMigrations());
  writer.exec(`INSERT INTO run (id, started_at, options) VALUES (1, '2026-01-01T00:00:00.000Z', '{}');
    INSERT INTO body (id, hash, size, data) VALUES (1, x'00', 2, x'6869');`);
  const url = writer.prepare('INSERT INTO url (url, origin, state, depth, redirect_hops) VALUES (?, ?, ?, 0, 0)');
  const response = writer.prepare(
    "INSERT INTO response (url_id, run_id, status, headers, body_id, fetched_at, elapsed_ms, links_found, links_new) VALUES (?, 1, 200, '{}', 1, '2026-01-01T00:00:01.000Z', 1, 0, 0)",
  );
  writer.transaction(() => {
    for (const [origin, fetched, failed, only] of HOSTS) {
      let n = 0;
      for (let i = 0; i < fetched; i += 1) response.run(url.run(`${origin}/f${(n += 1)}`, origin, 'done').lastInsertRowid);
      for (let i = 0; i < failed; i += 1) url.run(`${origin}/x${(n += 1)}`, origin, 'failed');
      for (let i = 0; i < only; i += 1) url.run(`${origin}/s${(n += 1)}`, origin, i % 2 ? 'queued' : 'skipped');
    }
  })();
  writer.close();
  db = new Database(path, { readonly: true });
});

afterAll(() => {
  db?.close();
  tmp.cleanup();
});

describe("the overview's hosts", () => {
  it('lists the hosts crawled by pages fetched (then failed, then seen), and the hosts never fetched apart by URLs seen', () => {
    const overview = archiveOverview(db);
    expect(overview.crawledHosts).toEqual([
      { origin: 'https://site.example', fetched: 9, failed: 1, seen: 13 },
      { origin: 'https://small.example', fetched: 2, failed: 0, seen: 42 },
      { origin: 'https://docs.example', fetched: 2, failed: 0, seen: 3 },
      { origin: 'https://down.example', fetched: 0, failed: 4, seen: 4 },
    ]);
    expect(overview.seenHosts).toEqual([
      { origin: 'https://bugs.example', fetched: 0, failed: 0, seen: 60 },
      { origin: 'https://cdn.example', fetched: 0, failed: 0, seen: 5 },
      { origin: 'https://one.example', fetched: 0, failed: 0, seen: 1 },
    ]);
    expect(overview.hostTotals).toEqual({ crawled: 4, seen: 3 });
  });

  it('shows the first rows of each list and counts the rest', () => {
    const overview = archiveOverview(db, 2);
    expect(overview.crawledHosts.map((host) => host.origin)).toEqual(['https://site.example', 'https://small.example']);
    expect(overview.seenHosts.map((host) => host.origin)).toEqual(['https://bugs.example', 'https://cdn.example']);
    expect(overview.hostTotals).toEqual({ crawled: 4, seen: 3 });
  });
});
