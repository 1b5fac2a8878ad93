import type { Database, Statement } from 'better-sqlite3';
import { cjkLocaleOf, cjkWords } from '../../text/index.js';
import type { PageText, StoredResponse } from '../../pipeline/ports.js';
import { pageTextLayout } from './convert-page-text.js';

/** Han, kana, Hangul and CJK punctuation: the text the trigram index is for; searchArchive picks that index for queries with it. */
export const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[\u{20000}-\u{3134f}]/u;

/**
 * Keeps `page_text` (and, through its triggers, both search indexes) in step
 * with a URL's latest response, inside the caller's transaction: a page with
 * text replaces the URL's row, any other response (an error, a redirect, a
 * crawl with --no-text) removes it, so no index ever answers with text the
 * archive no longer holds. A page with CJK text also gets its words, segmented
 * here (SQL cannot), into page_text_cjk_words (migration 0019).
 */
export class PageTextWriter {
  private readonly remove: Statement<[number]>;
  private readonly insert: Statement<[number, string, string | null, string, string | null, string, number, number]>;
  private readonly removeWords: Statement<[number]>;
  private readonly insertWords: Statement<[number, string | null, string]>;
  private readonly removeShare: Statement<[number]>;
  private readonly insertShare: Statement<[number, number]>;
  /** A DELETE through the compact layout's view counts no row (its trigger does the work): there, words are always removed. */
  private readonly removalsCounted: boolean;

  constructor(db: Database) {
    // A delete and an insert rather than an upsert: in a compact archive page_text is a view (see
    // convert-page-text.ts), which takes INSERT and DELETE through its triggers but no ON CONFLICT.
    this.remove = db.prepare('DELETE FROM page_text WHERE url_id = ?');
    this.insert = db.prepare(
      'INSERT INTO page_text (url_id, url, title, headings, description, body, cjk, text_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.removeWords = db.prepare('DELETE FROM page_text_cjk_words WHERE rowid = ?');
    this.insertWords = db.prepare('INSERT INTO page_text_cjk_words (rowid, title, body) VALUES (?, ?, ?)');
    this.removeShare = db.prepare('DELETE FROM page_link_share WHERE url_id = ?');
    this.insertShare = db.prepare('INSERT OR REPLACE INTO page_link_share (url_id, link_share) VALUES (?, ?)');
    this.removalsCounted = pageTextLayout(db) !== 'compact';
  }

  write(urlId: number, url: string, response: Pick<StoredResponse, 'title' | 'text'>): void {
    if (response.text) this.store(urlId, url, response.title ?? null, response.text);
    else this.removeRow(urlId);
  }

  /** The URL's row, and its CJK words when it had a row: a page stored the first time costs no lookup of words. */
  private removeRow(urlId: number): void {
    if (this.remove.run(urlId).changes > 0 || !this.removalsCounted) {
      this.removeWords.run(urlId);
      this.removeShare.run(urlId);
    }
  }

  store(urlId: number, url: string, title: string | null, text: PageText): void {
    const cjk = CJK.test(text.body) || (title !== null && CJK.test(title)) ? 1 : 0;
    this.removeRow(urlId);
    this.insert.run(urlId, url, title, text.headings, text.description ?? null, text.body, cjk, text.version);
    if (text.linkShare !== undefined) this.insertShare.run(urlId, Math.min(1, Math.max(0, text.linkShare)));
    if (cjk === 1) this.words(urlId, title, text.body);
  }

  /** The page's CJK words (its page_text row has cjk = 1), replacing any it had. */
  words(urlId: number, title: string | null, body: string): void {
    // Words left by a page_text row deleted in SQL would make the insert a duplicate rowid.
    this.removeWords.run(urlId);
    // One locale for the page: a title alone often has no kana where its Japanese body has.
    const locale = cjkLocaleOf(body);
    this.insertWords.run(urlId, title === null ? null : cjkWords(title, locale), cjkWords(body, locale));
  }
}
