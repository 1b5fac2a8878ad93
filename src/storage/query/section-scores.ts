import Database from 'better-sqlite3';

/** A page cut at its headings: what is scored of it. */
export interface PageSections {
  id: number;
  /** The page's title, the heading of the text before its first heading. */
  title: string | null;
  /** page_text.headings: each h1–h6, one per line, in document order. */
  headings: string;
  /** page_text.body: the page's visible text, its headings' words in it. */
  body: string;
}

export interface SectionScore {
  score: number;
  /** The heading of the page's best section ('' before its first heading when the page has no title). */
  heading: string;
}

/** Text read of one page at most: a section past it is not scored (the page keeps its whole-page score). */
const MAX_PAGE_CHARS = 256 * 1024;

/**
 * BM25 with a gentler saturation than FTS5's fixed k1 = 1.2: a section that says a word ten times is
 * about it more than one that says it twice. A word in the section's heading counts as HEADING_WEIGHT
 * mentions in its text.
 */
const K1 = 2;
const B = 0.75;
const HEADING_WEIGHT = 5;

/** The index's own tokenizer, so that a section matches a term exactly as the page did. */
const TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** Cuts a page's text where each heading's words start, in order; a heading not found in the text cuts nothing. */
function sectionsOf(page: PageSections): { heading: string; text: string }[] {
  const body = page.body.length > MAX_PAGE_CHARS ? page.body.slice(0, MAX_PAGE_CHARS) : page.body;
  // Where each section's text starts and ends: after its heading's words, up to the next heading's.
  const cuts: { heading: string; at: number; textAt: number }[] = [];
  let from = 0;
  for (const heading of page.headings.split('\n')) {
    if (heading === '') continue;
    const at = body.indexOf(heading, from);
    if (at < 0) continue;
    cuts.push({ heading, at, textAt: at + heading.length });
    from = at + heading.length;
  }
  // The text before the first heading is the page's own: its title heads it.
  if (cuts.length === 0 || cuts[0]!.at > 0) cuts.unshift({ heading: page.title ?? '', at: 0, textAt: 0 });
  return cuts.map((cut, i) => ({ heading: cut.heading, text: body.slice(cut.textAt, cuts[i + 1]?.at ?? body.length) }));
}

const marks = (text: string): number => {
  let n = 0;
  for (let i = text.indexOf('\u0001'); i >= 0; i = text.indexOf('\u0001', i + 1)) n++;
  return n;
};

/**
 * Each page's best section for `terms` (FTS5 strings: a word or a "quoted phrase" each), scored by BM25
 * over the sections of these pages alone: a page about many things is found by the part about the thing
 * asked for (the data model's "With Statement Context Managers" among its eighty sections), where a
 * whole-page score drowns that part in the rest. Sections go into an FTS5 table in memory with the
 * archive's tokenizer, so stems and phrases match as the index matched them.
 */
export function sectionScores(pages: readonly PageSections[], terms: readonly string[]): Map<number, SectionScore> {
  const best = new Map<number, SectionScore>();
  if (pages.length === 0 || terms.length === 0) return best;
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE section USING fts5(heading, text, page UNINDEXED, words UNINDEXED, tokenize="${TOKENIZER}")`);
    const insert = db.prepare<[string, string, number, number]>('INSERT INTO section (heading, text, page, words) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const page of pages) {
        for (const { heading, text } of sectionsOf(page)) insert.run(heading, text, page.id, wordCount(text));
      }
    })();
    const { sections, averageWords } = db
      .prepare<[], { sections: number; averageWords: number | null }>(
        'SELECT count(*) AS sections, avg(words) AS averageWords FROM section',
      )
      .get()!;
    const matches = db.prepare<[string], { id: number; page: number; words: number; heading: string; inHeading: string; inText: string }>(
      `SELECT rowid AS id, page, words, heading, highlight(section, 0, char(1), '') AS inHeading,
              highlight(section, 1, char(1), '') AS inText
       FROM section WHERE section MATCH ?`,
    );
    const scores = new Map<number, { page: number; heading: string; score: number }>();
    for (const term of terms) {
      const rows = matches.all(term);
      if (rows.length === 0) continue;
      const idf = Math.log(1 + (sections - rows.length + 0.5) / (rows.length + 0.5));
      for (const row of rows) {
        const tf = marks(row.inText) + HEADING_WEIGHT * Math.min(1, marks(row.inHeading));
        const norm = 1 - B + (B * row.words) / (averageWords || 1);
        const entry = scores.get(row.id) ?? { page: row.page, heading: row.heading, score: 0 };
        entry.score += (idf * tf * (K1 + 1)) / (tf + K1 * norm);
        scores.set(row.id, entry);
      }
    }
    for (const { page, heading, score } of scores.values()) {
      const held = best.get(page);
      if (held === undefined || held.score < score) best.set(page, { score, heading });
    }
    return best;
  } finally {
    db.close();
  }
}

function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) === 0x20;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}
