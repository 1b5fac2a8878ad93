import type { Database, Statement } from 'better-sqlite3';
import { asWriteError } from '../archive/archive-errors.js';
import { UrlRows } from './url-rows.js';

/** A page a WACZ lists (pages.jsonl), by archive key. */
export interface ListedPageRow {
  key: string;
  title: string | null;
  seed: boolean;
  main: boolean;
}

/** Roots taken from the lists at most: a hostile list cannot make the walk start everywhere. */
const MAX_ROOTS = 10_000;

/**
 * The pages a WACZ's page lists name, held in a TEMP table (outside the archive, gone with the
 * connection) while its WARCs are imported, then applied to what the import stored: a URL listed is a
 * page, not a requisite, and keeps the title listed when its response has none (a PDF, or a page
 * whose title a script set). A URL neither listed, nor a root, nor linked from anything stored is
 * what a browser fetched on its own (a favicon, a script's request): a requisite, not a page.
 */
export class ListedPages {
  private readonly insert: Statement<[{ url: string; title: string | null; seed: number; main: number }]>;

  constructor(
    private readonly db: Database,
    private readonly path: string,
  ) {
    db.exec(
      `CREATE TEMP TABLE IF NOT EXISTS import_listed_page (url TEXT PRIMARY KEY, title TEXT, seed INTEGER NOT NULL, main INTEGER NOT NULL)`,
    );
    this.insert = db.prepare(`INSERT INTO temp.import_listed_page (url, title, seed, main) VALUES (@url, @title, @seed, @main)
      ON CONFLICT (url) DO UPDATE SET title = coalesce(title, excluded.title), seed = max(seed, excluded.seed), main = max(main, excluded.main)`);
  }

  add(pages: ListedPageRow[]): void {
    this.db.transaction(() => {
      for (const page of pages) this.insert.run({ url: page.key, title: page.title, seed: page.seed ? 1 : 0, main: page.main ? 1 : 0 });
    })();
  }

  /** The crawl's seeds where the lists mark them, else the pages of pages.jsonl (a recorder's user visited each). */
  roots(): string[] {
    const seeds = this.db
      .prepare('SELECT url FROM temp.import_listed_page WHERE seed = 1 ORDER BY rowid LIMIT ?')
      .pluck()
      .all(MAX_ROOTS) as string[];
    if (seeds.length > 0) return seeds;
    return this.db
      .prepare('SELECT url FROM temp.import_listed_page WHERE main = 1 ORDER BY rowid LIMIT ?')
      .pluck()
      .all(MAX_ROOTS) as string[];
  }

  /** Applies the lists to the responses the run stored, the walk having started at `roots`; returns how many of them were listed. */
  apply(runId: number, roots: string[]): number {
    try {
      return this.db.transaction(() => {
        const listed = this.db.prepare('SELECT count(*) FROM temp.import_listed_page').pluck().get() as number;
        if (listed > 0)
          this.db
            .prepare(
              `UPDATE url SET kind = 'requisite' WHERE kind = 'page'
               AND id IN (SELECT url_id FROM response WHERE run_id = ?)
               AND url NOT IN (SELECT url FROM temp.import_listed_page)
               AND url NOT IN (SELECT value FROM json_each(?))
               AND id NOT IN (SELECT to_id FROM link)
               AND url NOT IN (SELECT to_url FROM link WHERE to_id = 0)`,
            )
            .run(runId, JSON.stringify(roots));
        new UrlRows(this.db).listedArePages(runId);
        this.db
          .prepare(
            `UPDATE response SET title = l.title FROM temp.import_listed_page l JOIN url u ON u.url = l.url
             WHERE response.url_id = u.id AND response.run_id = ? AND l.title IS NOT NULL AND coalesce(response.title, '') = ''`,
          )
          .run(runId);
        return this.db
          .prepare(
            'SELECT count(*) FROM temp.import_listed_page l JOIN url u ON u.url = l.url JOIN response r ON r.url_id = u.id WHERE r.run_id = ?',
          )
          .pluck()
          .get(runId) as number;
      })();
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  drop(): void {
    this.db.exec('DROP TABLE IF EXISTS temp.import_listed_page');
  }
}
