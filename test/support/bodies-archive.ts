import { createHash } from 'node:crypto';
import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { madeUpWords, mulberry32 } from './prng.js';

/** Where the pages of bodiesArchive live, and when they were fetched. */
export const BODIES_SITE = 'http://bodies.test/';
const FETCHED_AT = '2026-01-01T00:00:00.000Z';

/**
 * An archive of `pages` HTML pages, each with a body of its own of about
 * `bodyBytes` made-up words (as compressible as text): written straight into
 * the tables, far faster than a crawl of as many pages.
 */
export function bodiesArchive(path: string, pages: number, bodyBytes: number): string {
  const rand = mulberry32(11);
  const words = madeUpWords(rand, 5_000, 3, 7);
  const db = openArchive(path, 'create');
  try {
    db.prepare('INSERT INTO run (started_at, options) VALUES (?, ?)').run(FETCHED_AT, '{}');
    const url = db.prepare("INSERT INTO url (id, url, origin, kind, state, depth, redirect_hops) VALUES (?, ?, ?, 'page', 'done', 1, 0)");
    const body = db.prepare('INSERT INTO body (hash, size, data) VALUES (?, ?, ?)');
    const response =
      db.prepare(`INSERT INTO response (url_id, run_id, status, content_type, charset, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
      VALUES (?, 1, 200, 'text/html', 'utf-8', '{}', ?, ?, 1, 0, 0)`);
    db.transaction(() => {
      for (let id = 1; id <= pages; id += 1) {
        const text: string[] = [`<html><head><title>page ${id}</title></head><body>`];
        for (let length = 0; length < bodyBytes; length += text.at(-1)!.length + 1) text.push(words[Math.floor(rand() * words.length)]!);
        const data = Buffer.from(`${text.join(' ')}</body></html>`);
        url.run(id, `${BODIES_SITE}p/${id}`, BODIES_SITE.slice(0, -1));
        const bodyId = body.run(createHash('sha256').update(data).digest(), data.length, data).lastInsertRowid;
        response.run(id, bodyId, FETCHED_AT);
      }
    })();
  } finally {
    closeArchive(db);
  }
  return path;
}
