import type { Database, Statement } from 'better-sqlite3';

/** One page's replay score, to store (see migrations/0014_qa.sql for each column). */
export interface QaCheck {
  urlId: number;
  fetchedAt: string;
  pixelDiff: number | null;
  textMatch: number | null;
  resourcesLoaded: number;
  resourcesFailed: number;
  score: number;
  error: string | null;
  checkedAt: string;
}

/** Stores replay scores, one row per capture: checking a capture again replaces its row. */
export class QaWriter {
  private readonly upsert: Statement<QaCheck>;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT OR REPLACE INTO qa_check
      (url_id, fetched_at, pixel_diff, text_match, resources_loaded, resources_failed, score, error, checked_at)
      VALUES (@urlId, @fetchedAt, @pixelDiff, @textMatch, @resourcesLoaded, @resourcesFailed, @score, @error, @checkedAt)`);
  }

  /** One row, committed at once (autocommit): a page's score stays whatever stops the run after it. */
  record(check: QaCheck): void {
    this.upsert.run(check);
  }
}
