import type { Database } from 'better-sqlite3';

// The visible text of a URL's latest HTML response, as search indexes it (page_text, migration 6): what an
// export hands on with each page, so a replay tool's page search finds what crawlite's search finds.

/** On the url index, then page_text's primary key: one row's lookup. */
const PAGE_TEXT_SQL = 'SELECT t.body FROM url u JOIN page_text t ON t.url_id = u.id WHERE u.url = ?';

/** Looks up the text of the page at `url` (its archive key); undefined in an archive without page_text (a schema before 6). In a compact archive page_text is a view. */
export function pageTextLookup(db: Database): ((url: string) => string | undefined) | undefined {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = 'page_text'").get() === undefined)
    return undefined;
  const statement = db.prepare<[string], { body: string }>(PAGE_TEXT_SQL);
  return (url) => statement.get(url)?.body;
}
