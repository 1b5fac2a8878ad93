import type { Database } from 'better-sqlite3';
import { cjkWords, withoutWordBreaks } from '../../text/index.js';
import { NothingToSearchError, SearchNotIndexedError, SearchQueryError } from '../archive/archive-errors.js';
import { openArchive } from '../archive/open-archive.js';
import { CJK } from '../writer/page-text-writer.js';
import type { SearchHit, SearchMode, SearchOptions } from '../reader/reader-types.js';
import { termsAsTyped } from './search-as-typed.js';
import { rankPages, type SearchIndex } from './search-ranking.js';
import { checkSearchSize } from './search-limits.js';

export type { SearchHit, SearchMode, SearchOptions };
export { NothingToSearchError, SearchNotIndexedError, SearchQueryError };

/** Tokens of context around the matched terms in a snippet. */
const SNIPPET_TOKENS = 16;

type Index = SearchIndex;

/** Runs of Han, kana or Hangul: a run of one or two characters is a word the trigram index cannot find. */
const CJK_RUN = /[\u3005-\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\u{20000}-\u{3134f}]+/gu;

/**
 * What a hit shows of each page ranked (rankPages), in any order; its snippet from the same MATCH. One pass
 * over the matches, the ids a filter (`+rowid`): handed to FTS5 as rowid lookups, each would expand a
 * `prefix*` again (20 hits of `light*` on 100,000 pages: 167 ms against 11).
 */
const hitsSql = (index: Index) => `
  SELECT t.url_id AS id, t.url, t.title, snippet(${index}, -1, @markStart, @markEnd, '…', ${SNIPPET_TOKENS}) AS snippet,
         r.fetched_at AS fetchedAt, r.status
  FROM ${index}
  JOIN page_text t ON t.url_id = ${index}.rowid
  JOIN response r ON r.url_id = t.url_id
  WHERE ${index} MATCH @query AND +${index}.rowid IN (SELECT value FROM json_each(@ids))`;

function hasSearchTables(db: Database): boolean {
  const row = db
    .prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name IN ('page_text', 'page_text_fts', 'page_text_trigram')")
    .get() as { n: number };
  return row.n === 3;
}

/** SQLite's complaints about a MATCH expression; anything else (a damaged file, a busy one) is not the query's fault. */
function isQueryError(error: unknown): error is Error {
  if (!(error instanceof Error) || !('code' in error) || error.code !== 'SQLITE_ERROR') return false;
  return /fts5|syntax error|no such column|unknown special query|unterminated/i.test(error.message);
}

function run<T>(query: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isQueryError(error)) throw new SearchQueryError(query, error.message.replace(/\s+/g, ' '), { cause: error });
    throw error;
  }
}

const hasCjkWords = (db: Database): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'page_text_cjk_words'").get() !== undefined;

/**
 * Which index answers: for a query with CJK characters, the CJK words one when a run of them is one or
 * two characters long (a word: 竹林, 東京, 都), which no trigram can hold, else the trigram one (any
 * substring of 3 characters or more), both holding the pages with CJK text, since those scripts put no
 * spaces between words and the word index holds whole runs of them as single tokens; else the word
 * index, stemmed and ranked by bm25 with the title weighed most. Never a fallback from one to another
 * on no hits: the CJK indexes hold only CJK pages, so Latin words would be found on those alone. An
 * archive opened read-only before migration 0019 has no CJK words index and keeps the trigram one.
 */
function chooseIndex(db: Database, query: string): Index {
  if (!CJK.test(query)) return 'page_text_fts';
  const short = [...query.matchAll(CJK_RUN)].some(([run]) => [...run].length <= 2);
  return short && hasCjkWords(db) ? 'page_text_cjk_words' : 'page_text_trigram';
}

/**
 * Ranked best first. The query is read as typed unless options.mode is 'fts' (see SearchMode); throws
 * NothingToSearchError ('NOTHING_TO_SEARCH') for a query without a word, SearchQueryError (a CrawliteError,
 * code 'BAD_SEARCH_QUERY', one-line message) on malformed FTS5 queries, SearchTooLargeError ('SEARCH_TOO_LARGE')
 * past the size limits (search-limits.ts), in either mode. Runs on the caller's thread for as long as SQLite
 * takes: startSearch (search-in-worker.ts) runs it in a process with a time limit.
 */
export function searchArchive(db: Database /* better-sqlite3, may be read-only */, query: string, options: SearchOptions): SearchHit[] {
  if (!hasSearchTables(db)) throw new SearchNotIndexedError();
  if (query.trim() === '') throw new NothingToSearchError(query);
  checkSearchSize(query);
  const index = chooseIndex(db, query);
  // A query's Han and kana are segmented as a page's were: typed 東京都 is the phrase 東京 都 there.
  const words = index === 'page_text_cjk_words';
  const terms = options.mode === 'fts' ? undefined : termsAsTyped(query, words ? cjkWords : undefined);
  const match = terms ? terms.join(' ') : query;
  if (match === '') throw new NothingToSearchError(query);
  return run(query, () => {
    // A page's parts are scored on the word index: the CJK ones hold no headings.
    const ranked = rankPages(db, index, match, index === 'page_text_fts' ? terms : undefined, options.offset ?? 0, options.limit);
    if (ranked.length === 0) return [];
    const shown = new Map(
      db
        .prepare<[Record<string, unknown>], Omit<SearchHit, 'rank' | 'section'> & { id: number }>(hitsSql(index))
        .all({
          query: match,
          ids: JSON.stringify(ranked.map((page) => page.id)),
          markStart: options.markStart ?? '[',
          markEnd: options.markEnd ?? ']',
        })
        .map(({ id, ...hit }) => [id, hit]),
    );
    const hits: SearchHit[] = [];
    for (const { id, rank, section } of ranked) {
      const hit = shown.get(id);
      if (hit === undefined) continue;
      hits.push({ ...hit, snippet: words ? withoutWordBreaks(hit.snippet) : hit.snippet, rank, section: section ?? null });
    }
    return hits;
  });
}

/**
 * HTML pages (2xx, of kind page) stored without text: pages of an archive
 * crawled before search existed, or with --no-text; and pages with CJK text
 * but no CJK words (stored before migration 0019). `crawlite reindex` adds them.
 */
export function pagesWithoutText(db: Database): number {
  if (!hasSearchTables(db)) return -1;
  const withoutText = (db.prepare(`${unindexedPagesFrom()} SELECT count(*) AS n FROM unindexed`).get() as { n: number }).n;
  // The CJK pages are the trigram index's documents: its docsize rows are small, where page_text's cjk column
  // sits past each body. An archive opened read-only before migration 0019 has no CJK words at all.
  const withoutWords = db
    .prepare(
      hasCjkWords(db)
        ? `SELECT count(*) AS n FROM page_text_trigram_docsize d
           WHERE NOT EXISTS (SELECT 1 FROM page_text_cjk_words_docsize w WHERE w.id = d.id)`
        : 'SELECT count(*) AS n FROM page_text_trigram_docsize',
    )
    .get() as { n: number };
  return withoutText + withoutWords.n;
}

/** pagesWithoutText of the archive at `path`, opened read-only for it. */
export function pagesWithoutTextIn(path: string): number {
  const db = openArchive(path, 'readonly');
  try {
    return pagesWithoutText(db);
  } finally {
    db.close();
  }
}

/**
 * The responses that should have a page_text row and have none, as a CTE `unindexed(url_id, url,
 * content_type, body_id)`; with `version`, also those whose text an older extraction made.
 */
export function unindexedPagesFrom(version?: number): string {
  // Written into the SQL: a CTE prefix takes no parameters of its own; an integer cannot inject anything.
  if (version !== undefined && !Number.isSafeInteger(version)) throw new TypeError(`text version must be an integer, got ${version}`);
  const missing =
    version === undefined
      ? 'NOT EXISTS (SELECT 1 FROM page_text t WHERE t.url_id = r.url_id)'
      : `NOT EXISTS (SELECT 1 FROM page_text t WHERE t.url_id = r.url_id AND t.text_version >= ${version})`;
  return `
  WITH unindexed AS (
    SELECT r.url_id, u.url, r.content_type, r.body_id
    FROM response r JOIN url u ON u.id = r.url_id
    WHERE u.kind = 'page' AND r.status BETWEEN 200 AND 299
      AND (lower(trim(r.content_type)) LIKE 'text/html%' OR lower(trim(r.content_type)) LIKE 'application/xhtml+xml%')
      AND ${missing}
  )`;
}
