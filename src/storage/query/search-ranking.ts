import type { Database } from 'better-sqlite3';
import { sectionScores, type PageSections } from './section-scores.js';

export type SearchIndex = 'page_text_fts' | 'page_text_trigram' | 'page_text_cjk_words';

/** A page found, in the order of the results. */
export interface RankedPage {
  id: number;
  /** Lower is better, as FTS5's rank: minus the score below. */
  rank: number;
  /** The heading of the part of the page that answered best, when the page's sections were scored. */
  section?: string;
}

/** Pages ranked again by their parts: the first this many of the index's order. */
const WINDOW = 100;
/** Of those, the pages whose sections are read and scored (their text is read: the cost of a search). */
const SECTIONED = 50;
/** How much the whole page's score counts beside its best section's, each scaled to the best of the window. */
const PAGE_WEIGHT = 0.5;

/**
 * What a page's share of link text leaves of its score: 1 for prose, 0.1 for a page of nothing but
 * links (an index, a table of contents, a site map), which then ranks below the pages it points to
 * unless it alone matches well.
 */
const PRIOR = (share: string) => `(1.0 - 0.9 * ${share} * ${share})`;

const hasLinkShare = (db: Database): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'page_link_share'").get() !== undefined;

interface Candidate {
  id: number;
  /** The index's own score (minus its bm25 rank): higher is better. */
  bm25: number;
  prior: number;
}

/**
 * The pages that match, best first, `limit` of them from `offset`. Three signals, each measured:
 * - the index's bm25, which weighs title, headings and body (migration 0006);
 * - the page's link share (page_link_share), so an index or a list of links gives way to the pages it lists;
 * - with `terms` (a query as typed, on the word index), the best section of each of the first pages,
 *   scored by sectionScores: the part of a page about the thing, under its own heading.
 * The first WINDOW pages in the order of bm25 times the prior are ranked again with their sections;
 * the rest keep that order, which scores them as pages without a section, so the two parts join
 * without a jump and paging through results never repeats or skips a page.
 */
export function rankPages(
  db: Database,
  index: SearchIndex,
  match: string,
  terms: readonly string[] | undefined,
  offset: number,
  limit: number,
): RankedPage[] {
  const share = hasLinkShare(db) ? 'coalesce(s.link_share, 0)' : '0';
  const join = share === '0' ? '' : `LEFT JOIN page_link_share s ON s.url_id = ${index}.rowid`;
  const ordered = db.prepare<[string, number, number], Candidate>(`
    SELECT ${index}.rowid AS id, -${index}.rank AS bm25, ${PRIOR(share)} AS prior
    FROM ${index} ${join}
    WHERE ${index} MATCH ?
    ORDER BY ${index}.rank * ${PRIOR(share)}, ${index}.rowid
    LIMIT ? OFFSET ?`);
  const window = ordered.all(match, WINDOW, 0);
  if (window.length === 0) return [];
  const bestPage = Math.max(...window.map((page) => page.bm25)) || 1;
  const sections = terms && terms.length > 0 ? sectionScores(readSections(db, window.slice(0, SECTIONED)), terms) : new Map();
  const bestSection = Math.max(0, ...[...sections.values()].map((section) => section.score)) || 1;
  const score = (page: Candidate) =>
    page.prior * ((PAGE_WEIGHT * page.bm25) / bestPage + (sections.get(page.id)?.score ?? 0) / bestSection);
  const ranked: RankedPage[] = window
    .map((page) => ({ page, score: score(page) }))
    .sort((a, b) => b.score - a.score || a.page.id - b.page.id)
    .map(({ page, score }) => {
      const section = sections.get(page.id)?.heading;
      return section === undefined ? { id: page.id, rank: -score } : { id: page.id, rank: -score, section };
    });
  const head = ranked.slice(offset, offset + limit);
  if (window.length < WINDOW || offset + limit <= WINDOW) return head;
  const tailOffset = Math.max(WINDOW, offset);
  const tail = ordered.all(match, offset + limit - tailOffset, tailOffset);
  return [...head, ...tail.map((page) => ({ id: page.id, rank: -score(page) }))];
}

function readSections(db: Database, pages: readonly Candidate[]): PageSections[] {
  // headings and body only: a compact archive's page_text view inflates the body of these pages alone.
  const read = db.prepare<[number], { title: string | null; headings: string; body: string }>(
    'SELECT title, headings, body FROM page_text WHERE url_id = ?',
  );
  const found: PageSections[] = [];
  for (const { id } of pages) {
    const row = read.get(id);
    if (row) found.push({ id, ...row });
  }
  return found;
}
