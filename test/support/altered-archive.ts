import Database from 'better-sqlite3';
import { copyArchive } from './copy-archive.js';

/** A copy of an archive edited as someone else could have edited it: `edit` runs on the copy's own connection. */
export function alteredCopy(from: string, to: string, edit: string | ((db: Database.Database) => void)): string {
  copyArchive(from, to);
  const db = new Database(to);
  // better-sqlite3 turns foreign keys on; a hand edit of the schema (a table dropped) goes without them.
  db.pragma('foreign_keys = OFF');
  try {
    if (typeof edit === 'string') db.exec(edit);
    else edit(db);
  } finally {
    db.close();
  }
  return to;
}

/** `url` replaced by a view that never ends: every URL row a recursive query makes up, without end. */
export const ENDLESS_URL_VIEW = `DROP TABLE url;
  CREATE VIEW url AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
  SELECT i AS id, 'http://127.0.0.1/' || i AS url, 'done' AS state, 0 AS depth, 0 AS redirect_hops, 0 AS tries,
         NULL AS error_code, NULL AS error, 'page' AS kind, 'http://127.0.0.1' AS origin, NULL AS fetch_url,
         NULL AS path_key, 1 AS crawl, NULL AS found_from
  FROM n;`;

/** `body` replaced by a view whose every body is `bytes` zero bytes: a small file that reads as a huge one. */
export const zeroblobBodyView = (bytes: number) => `CREATE TABLE body_store AS SELECT * FROM body; DROP TABLE body;
  CREATE VIEW body AS SELECT id, hash, size, zeroblob(${bytes}) AS data, sha1 FROM body_store;`;
