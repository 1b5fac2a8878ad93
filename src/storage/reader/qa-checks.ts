import type { Database, Statement } from 'better-sqlite3';
import type { QaPage, QaPageMaterial, QaRow, QaTotals } from './reader-types.js';
import { screenshotType } from './screenshots.js';

// What `crawlite qa` reads: the pages to replay, a page at a time (keyset paging on url id, so memory
// stays flat however big the archive), what was stored at capture to compare the replay with, and the
// scores stored since (migration 14).

const HTML_PAGE = `u.kind = 'page' AND r.status BETWEEN 200 AND 299
  AND (lower(trim(r.content_type)) LIKE 'text/html%' OR lower(trim(r.content_type)) LIKE 'application/xhtml+xml%')`;

/** Whether the archive has the qa_check table (schema 14 and later). */
export function hasQaChecks(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'qa_check'").get() !== undefined;
}

/**
 * The pages QA replays: the latest capture of each HTML page answered 2xx (the one whose text
 * page_text holds), read `batch` at a time in url id order.
 */
export class QaPages {
  private readonly next: Statement<[number, number], QaPage>;
  private readonly count: Statement<[], { n: number }>;
  private readonly shot: Statement<[number, string], { type: string; data: Buffer }> | undefined;
  private readonly text: Statement<[number], { body: string }>;

  constructor(db: Database) {
    this.next = db.prepare(`SELECT r.url_id AS urlId, u.url, r.fetched_at AS fetchedAt FROM response r JOIN url u ON u.id = r.url_id
      WHERE ${HTML_PAGE} AND r.url_id > ? ORDER BY r.url_id LIMIT ?`);
    this.count = db.prepare(`SELECT count(*) AS n FROM response r JOIN url u ON u.id = r.url_id WHERE ${HTML_PAGE}`);
    const shots = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'screenshot'").get() !== undefined;
    this.shot = shots ? db.prepare('SELECT type, data FROM screenshot WHERE url_id = ? AND fetched_at = ?') : undefined;
    this.text = db.prepare('SELECT body FROM page_text WHERE url_id = ?');
  }

  total(): number {
    return this.count.get()!.n;
  }

  /** Up to `limit` pages after url id `after`. */
  after(after: number, limit: number): QaPage[] {
    return this.next.all(after, limit);
  }

  /** The screenshot (an image type crawlite reads only) and the text stored for the capture, each if any. */
  material(page: QaPage): QaPageMaterial {
    const shot = this.shot?.get(page.urlId, page.fetchedAt);
    const type = screenshotType(shot?.type);
    const text = this.text.get(page.urlId)?.body;
    return { ...(shot && type ? { screenshot: { type, data: shot.data } } : {}), ...(text !== undefined ? { text } : {}) };
  }
}

const QA_COLUMNS = `u.url, q.fetched_at AS fetchedAt, q.pixel_diff AS pixelDiff, q.text_match AS textMatch,
  q.resources_loaded AS resourcesLoaded, q.resources_failed AS resourcesFailed, q.score, q.error, q.checked_at AS checkedAt`;

/**
 * The stored scores, worst first (ties in url id order, along the score index), `limit` from `offset`; with `since` (an ISO time), only
 * those checked since. None before schema 14.
 */
export function worstQaRows(db: Database, limit: number, offset = 0, since = ''): QaRow[] {
  if (!hasQaChecks(db)) return [];
  return db
    .prepare<[string, number, number], QaRow>(
      `SELECT ${QA_COLUMNS} FROM qa_check q JOIN url u ON u.id = q.url_id WHERE q.checked_at >= ? ORDER BY q.score, q.url_id LIMIT ? OFFSET ?`,
    )
    .all(since, limit, offset);
}

/** How many pages have a score (checked since `since`, an ISO time), their mean, their median, and how many score below `threshold`. */
export function qaTotals(db: Database, threshold: number, since = ''): QaTotals {
  if (!hasQaChecks(db)) return { checked: 0, mean: null, median: null, below: 0 };
  const { checked, mean, below } = db
    .prepare<[number, string], { checked: number; mean: number | null; below: number }>(
      'SELECT count(*) AS checked, avg(score) AS mean, coalesce(sum(score < ?), 0) AS below FROM qa_check WHERE checked_at >= ?',
    )
    .get(threshold, since)!;
  // The middle row (or the mean of the two middle rows), in score order.
  const middle = db
    .prepare<[string, number, number], { score: number }>(
      'SELECT score FROM qa_check WHERE checked_at >= ? ORDER BY score LIMIT ? OFFSET ?',
    )
    .all(since, checked % 2 === 0 ? 2 : 1, Math.max(0, Math.floor((checked - 1) / 2)));
  const median = middle.length === 0 ? null : middle.reduce((sum, row) => sum + row.score, 0) / middle.length;
  return { checked, mean, median, below };
}
