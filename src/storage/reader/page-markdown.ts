import type { Database } from 'better-sqlite3';
import type { StoredMarkdown } from './reader-types.js';

const MARKDOWN_SQL = `SELECT u.url, m.fetched_at AS fetchedAt, m.title, m.markdown, m.reason
  FROM url u JOIN markdown m ON m.url_id = u.id
  WHERE u.url = ? AND m.fetched_at = coalesce(?, (SELECT r.fetched_at FROM response r WHERE r.url_id = u.id))`;

/** Looks up a capture's Markdown (the latest capture's without `fetchedAt`); undefined in an archive without the table (a schema before 18). */
export function markdownLookup(db: Database): ((url: string, fetchedAt?: string) => StoredMarkdown | undefined) | undefined {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'markdown'").get() === undefined) return undefined;
  const statement = db.prepare<[string, string | null], StoredMarkdown>(MARKDOWN_SQL);
  return (url, fetchedAt) => statement.get(url, fetchedAt ?? null);
}
