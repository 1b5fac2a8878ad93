// A query as people type it (sys.path, f-string, @dataclass, C++, it's, AND) turned into an FTS5
// MATCH expression that cannot be a syntax error: each word and each "quoted phrase" becomes an
// FTS5 string, which the index's own tokenizer splits as it split the pages. So sys.path asks
// for the tokens sys and path side by side, as the page's "sys.path" was stored; OR, NOT, NEAR,
// column:, prefix* and parentheses are plain text here (searchArchive's mode 'fts' takes them).

/** A "quoted phrase" (its closing quote may be missing at the end), or a run of anything but spaces and quotes. */
const TERM = /"([^"]*)"?|[^\s"]+/gu;

/** What both tokenizers keep: a term without any (`(`, `@`, `--`) asks for nothing and is dropped. */
const SEARCHABLE = /[\p{L}\p{N}\p{Co}]/u;

/** An FTS5 string: any text, its double quotes doubled. */
const ftsString = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * The terms of a query as typed: its words and phrases, each an FTS5 string; none when no term has a
 * letter or digit. `segment` rewrites each term's text as the index's pages were rewritten (the CJK
 * words index's).
 */
export function termsAsTyped(query: string, segment?: (text: string) => string): string[] {
  // Control characters separate words as spaces do (a NUL would end SQLite's string early).
  const text = query.replace(/\p{Cc}/gu, ' ');
  const terms: string[] = [];
  for (const [whole, phrase] of text.matchAll(TERM)) {
    const term = phrase ?? whole;
    if (SEARCHABLE.test(term)) terms.push(ftsString(segment ? segment(term) : term));
  }
  return terms;
}

/**
 * The MATCH expression for a query as typed: its terms (termsAsTyped), all required (FTS5's implicit
 * AND). '' when there is nothing to search for.
 */
export function matchAsTyped(query: string, segment?: (text: string) => string): string {
  return termsAsTyped(query, segment).join(' ');
}
