import type { Database } from 'better-sqlite3';

// Two layouts of page_text, one contract. Plain (migrations 0006-0009): page_text is a table and the
// search indexes read it as external content. Compact: the rows live in page_text_zlib with the body in
// SQLite's sqlar convention (a BLOB: a zlib stream exactly when length(body) < body_size, else the text's
// UTF-8 bytes), and page_text is a view that inflates it, with INSTEAD OF triggers that compress what is written
// and keep both indexes in step. The indexes' definitions do not change (content="page_text" reads the
// view), so neither is rebuilt, and rankings and snippets are the same. Title, headings, description and
// url stay plain in both: they are small and users read them as metadata.

export type PageTextLayout = 'plain' | 'compact';

export interface ConvertPageTextOptions {
  /** Rows per statement, so progress can be told on a large archive. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
}

const BATCH_SIZE = 1000;

const DROP_TRIGGERS = `
  DROP TRIGGER IF EXISTS page_text_insert;
  DROP TRIGGER IF EXISTS page_text_delete;
  DROP TRIGGER IF EXISTS page_text_update;`;

/**
 * The table and triggers migrations 0006 and 0009 made, as sqlite_schema holds them (0009's ALTER TABLE
 * appended its column to the text): the plain layout made again is the schema of any other archive.
 */
const PLAIN_TABLE = `CREATE TABLE page_text (
  url_id INTEGER PRIMARY KEY,
  url TEXT NOT NULL,
  title TEXT,
  -- The text of each h1-h6, one per line.
  headings TEXT NOT NULL,
  description TEXT,
  -- Visible text, whitespace collapsed, at most 1 MiB of characters.
  body TEXT NOT NULL,
  -- 1 when title or body has Han, kana or Hangul: the page goes into page_text_trigram too.
  cjk INTEGER NOT NULL DEFAULT 0 CHECK (cjk IN (0, 1))
, text_version INTEGER NOT NULL DEFAULT 1) STRICT`;

// How the triggers of either layout keep both indexes in step, as 0006 wrote it. External content: the
// indexes must be told the old values to remove them.
const INDEX_INSERT = `
  INSERT INTO page_text_fts (rowid, title, headings, description, body)
  VALUES (new.url_id, new.title, new.headings, new.description, new.body);
  INSERT INTO page_text_trigram (rowid, title, body) SELECT new.url_id, new.title, new.body WHERE new.cjk = 1;`;

const INDEX_DELETE = `
  INSERT INTO page_text_fts (page_text_fts, rowid, title, headings, description, body)
  VALUES ('delete', old.url_id, old.title, old.headings, old.description, old.body);
  INSERT INTO page_text_trigram (page_text_trigram, rowid, title, body) SELECT 'delete', old.url_id, old.title, old.body WHERE old.cjk = 1;`;

const PLAIN_TRIGGERS = `CREATE TRIGGER page_text_insert AFTER INSERT ON page_text BEGIN${INDEX_INSERT}
END;
CREATE TRIGGER page_text_delete AFTER DELETE ON page_text BEGIN${INDEX_DELETE}
END;
CREATE TRIGGER page_text_update AFTER UPDATE ON page_text BEGIN${INDEX_DELETE}${INDEX_INSERT}
END;`;

const COMPACT_TABLE = `
  CREATE TABLE page_text_zlib (
    url_id INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    title TEXT,
    headings TEXT NOT NULL,
    description TEXT,
    -- The text's UTF-8 bytes through sqlar_compress: a zlib stream when that is smaller, else the bytes as they are.
    body BLOB NOT NULL,
    -- Bytes of the body's UTF-8 text.
    body_size INTEGER NOT NULL,
    cjk INTEGER NOT NULL DEFAULT 0 CHECK (cjk IN (0, 1)),
    text_version INTEGER NOT NULL DEFAULT 1
  ) STRICT`;

const COMPACT_VIEW = `
  CREATE VIEW page_text AS
  SELECT url_id, url, title, headings, description, CAST(sqlar_uncompress(body, body_size) AS TEXT) AS body, cjk, text_version
  FROM page_text_zlib`;

const COMPACT_TRIGGERS = `
  CREATE TRIGGER page_text_insert INSTEAD OF INSERT ON page_text BEGIN
    INSERT INTO page_text_zlib (url_id, url, title, headings, description, body, body_size, cjk, text_version)
    VALUES (new.url_id, new.url, new.title, new.headings, new.description, sqlar_compress(CAST(new.body AS BLOB)),
            length(CAST(new.body AS BLOB)), coalesce(new.cjk, 0), coalesce(new.text_version, 1));
    ${INDEX_INSERT}
  END;
  CREATE TRIGGER page_text_delete INSTEAD OF DELETE ON page_text BEGIN ${INDEX_DELETE}
    DELETE FROM page_text_zlib WHERE url_id = old.url_id;
  END;
  CREATE TRIGGER page_text_update INSTEAD OF UPDATE ON page_text BEGIN ${INDEX_DELETE}
    UPDATE page_text_zlib SET url_id = new.url_id, url = new.url, title = new.title, headings = new.headings,
      description = new.description, body = sqlar_compress(CAST(new.body AS BLOB)), body_size = length(CAST(new.body AS BLOB)),
      cjk = new.cjk, text_version = new.text_version
    WHERE url_id = old.url_id;
    ${INDEX_INSERT}
  END;`;

/** 'compact' when page_text is the view over page_text_zlib; undefined in an archive without page_text. */
export function pageTextLayout(db: Database): PageTextLayout | undefined {
  const row = db.prepare<[], { type: string }>("SELECT type FROM sqlite_schema WHERE name = 'page_text'").get();
  if (row === undefined) return undefined;
  return row.type === 'view' ? 'compact' : 'plain';
}

/**
 * Turns page_text into the given layout, inside the caller's transaction (the caller commits or rolls
 * back the whole change: a kill leaves the old layout or the new one). Rows are copied in url id order,
 * `batchSize` per statement; the search indexes are untouched, as the text they index stays the same.
 * Needs the sqlar functions on the connection (every archive connection crawlite opens has them).
 * Returns the rows converted; 0 when the archive is in that layout already.
 */
export function convertPageText(db: Database, to: PageTextLayout, options: ConvertPageTextOptions = {}): number {
  if (!db.inTransaction) throw new Error('convertPageText runs inside the caller’s transaction');
  const from = pageTextLayout(db);
  if (from === undefined || from === to) return 0;
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const source = from === 'plain' ? 'page_text' : 'page_text_zlib';
  const total = (db.prepare(`SELECT count(*) AS n FROM ${source}`).get() as { n: number }).n;
  db.exec(DROP_TRIGGERS);
  let copy;
  if (to === 'compact') {
    db.exec(COMPACT_TABLE);
    copy = db.prepare<[number, number], { last: number | null }>(`
      INSERT INTO page_text_zlib (url_id, url, title, headings, description, body, body_size, cjk, text_version)
      SELECT url_id, url, title, headings, description, sqlar_compress(CAST(body AS BLOB)), length(CAST(body AS BLOB)), cjk, text_version
      FROM page_text WHERE url_id > ? ORDER BY url_id LIMIT ?
      RETURNING url_id AS last`);
  } else {
    db.exec('DROP VIEW page_text');
    db.exec(PLAIN_TABLE);
    copy = db.prepare<[number, number], { last: number | null }>(`
      INSERT INTO page_text (url_id, url, title, headings, description, body, cjk, text_version)
      SELECT url_id, url, title, headings, description, CAST(sqlar_uncompress(body, body_size) AS TEXT), cjk, text_version
      FROM page_text_zlib WHERE url_id > ? ORDER BY url_id LIMIT ?
      RETURNING url_id AS last`);
  }
  let done = 0;
  let after = -Infinity;
  for (;;) {
    const rows = copy.all(Number.isFinite(after) ? after : Number.MIN_SAFE_INTEGER, batchSize);
    if (rows.length === 0) break;
    done += rows.length;
    after = Math.max(...rows.map((row) => row.last ?? -Infinity));
    options.onProgress?.(done, total);
  }
  if (to === 'compact') {
    db.exec('DROP TABLE page_text');
    db.exec(COMPACT_VIEW);
    db.exec(COMPACT_TRIGGERS);
  } else {
    db.exec('DROP TABLE page_text_zlib');
    db.exec(PLAIN_TRIGGERS);
  }
  return done;
}
