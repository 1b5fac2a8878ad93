import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { PageTextWriter } from '../../src/storage/writer/page-text-writer.js';
import { madeUpWords, mulberry32 } from './prng.js';
import { TEXT_EXTRACTION_VERSION } from '../../src/html/index.js';

/** Where the pages of textArchive live, and when they were fetched (their replay timestamp). */
export const TEXT_SITE = 'http://text.test/';
export const TEXT_FETCHED_AT = '2026-01-01T00:00:00.000Z';

/**
 * An archive of `pages` HTML pages (empty bodies) whose search text is 150
 * words each, drawn from 20,000 made-up ones: written straight into the
 * tables, far faster than a crawl of as many pages.
 */
export function textArchive(path: string, pages: number): string {
  const rand = mulberry32(7);
  const words = madeUpWords(rand, 20_000, 4, 6);
  const db = openArchive(path, 'create');
  try {
    db.prepare('INSERT INTO run (started_at, options) VALUES (?, ?)').run(TEXT_FETCHED_AT, '{}');
    const bodyId = db.prepare("INSERT INTO body (hash, size, data) VALUES (randomblob(32), 0, x'')").run().lastInsertRowid;
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO url (id, url, origin, kind, state, depth, redirect_hops) SELECT i, ? || 'p/' || i, ?, 'page', 'done', 1, 0 FROM n`,
    ).run(pages, TEXT_SITE, TEXT_SITE.slice(0, -1));
    db.prepare(
      `INSERT INTO response (url_id, run_id, status, content_type, charset, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
      SELECT id, 1, 200, 'text/html', 'utf-8', '{}', ?, ?, 1, 0, 0 FROM url`,
    ).run(bodyId, TEXT_FETCHED_AT);
    const writer = new PageTextWriter(db);
    db.transaction(() => {
      for (let id = 1; id <= pages; id += 1) {
        const body = Array.from({ length: 150 }, () => words[Math.floor(rand() * words.length)]).join(' ');
        writer.store(id, `${TEXT_SITE}p/${id}`, `page ${id}`, { body, headings: '', version: TEXT_EXTRACTION_VERSION });
      }
    })();
  } finally {
    closeArchive(db);
  }
  return path;
}

/** `a* OR b* OR ...`: each one-letter prefix reads a 26th of every word in the index. */
export const prefixQuery = (prefixes: number): string =>
  Array.from({ length: prefixes }, (_, i) => `${String.fromCharCode(97 + (i % 26))}*`).join(' OR ');
