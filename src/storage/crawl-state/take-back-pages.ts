import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { PageOutcome } from '../../pipeline/ports.js';
import type { UrlRows } from '../writer/url-rows.js';

/**
 * Takes pages a shard committed back out of it, when the shared frontier did not take them: the
 * worker lost its lease meanwhile, and the URL is another worker's to store. What each page's
 * commit wrote as its capture goes, by its URL and fetched_at: the response (with the links and
 * text that came with it), any earlier capture of that time, its screenshot and render notes, and the same for what
 * the page fetched as it rendered. A URL left with no response is queued again in the shard. The
 * bodies stay (a merge copies only those its captures use); the URLs the page found stay queued.
 * One transaction.
 */
export class TakeBackPages {
  private readonly urlId: Statement<[string], { id: number }>;
  private readonly deletePage: Statement<[number, string]>;
  private readonly deleteLinks: Statement<[number]>;
  private readonly deleteText: Statement<[number]>;
  private readonly deleteEarlier: Statement<[number, string]>;
  private readonly deleteScreenshot: Statement<[number, string]>;
  private readonly deleteRenderNotes: Statement<[number, string]>;
  private readonly takeBackAll: Transaction<(outcomes: readonly PageOutcome[]) => void>;

  constructor(
    db: Database,
    private readonly urls: UrlRows,
  ) {
    this.urlId = db.prepare('SELECT id FROM url WHERE url = ?');
    this.deletePage = db.prepare('DELETE FROM response WHERE url_id = ? AND fetched_at = ?');
    this.deleteLinks = db.prepare('DELETE FROM link WHERE from_id = ?');
    this.deleteText = db.prepare('DELETE FROM page_text WHERE url_id = ?');
    this.deleteEarlier = db.prepare('DELETE FROM capture WHERE url_id = ? AND fetched_at = ?');
    this.deleteScreenshot = db.prepare('DELETE FROM screenshot WHERE url_id = ? AND fetched_at = ?');
    this.deleteRenderNotes = db.prepare('DELETE FROM render_note WHERE url_id = ? AND fetched_at = ?');
    this.takeBackAll = db.transaction((outcomes: readonly PageOutcome[]) => {
      for (const outcome of outcomes) {
        for (const exchange of outcome.exchanges ?? []) this.forget(exchange.key, exchange.response.fetchedAt);
        this.forget(outcome.claim.key, outcome.response?.fetchedAt);
      }
    });
  }

  takeBack(outcomes: readonly PageOutcome[]): void {
    this.takeBackAll.immediate(outcomes);
  }

  private forget(key: string, fetchedAt: string | undefined): void {
    const row = this.urlId.get(key);
    if (!row) return;
    if (fetchedAt !== undefined) {
      if (this.deletePage.run(row.id, fetchedAt).changes > 0) {
        this.deleteLinks.run(row.id);
        this.deleteText.run(row.id);
      }
      this.deleteEarlier.run(row.id, fetchedAt);
      this.deleteScreenshot.run(row.id, fetchedAt);
      this.deleteRenderNotes.run(row.id, fetchedAt);
    }
    this.urls.requeueUnstored(row.id);
  }
}
