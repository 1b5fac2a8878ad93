-- Full-text search. page_text holds what a reader sees of each HTML page
-- (its latest response's): one row per URL, keyed by the url's id, with the
-- URL itself so that tools showing raw rows (sqlite-utils, Datasette) are
-- readable. Two FTS5 indexes read it as external content, kept in step by
-- the triggers below in the transaction that writes the row:
--   page_text_fts      words, Porter-stemmed (`crawling` finds `crawl`),
--                      accents folded; what `crawlite search` asks first.
--                      Created first: sqlite-utils and Datasette use the
--                      first FTS table naming content="page_text".
--   page_text_trigram  every 3-character substring of title and body, for
--                      text without spaces between words (Chinese, Japanese,
--                      Korean). It holds only the pages with such characters
--                      (the view page_text_cjk): on other pages it would cost
--                      four times the CPU and nine times the bytes of the word
--                      index for nothing the word index cannot find.
-- Pages stored before this migration have no row: `crawlite reindex` adds them.

CREATE TABLE page_text (
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
) STRICT;

CREATE VIRTUAL TABLE page_text_fts USING fts5(
  title, headings, description, body,
  content="page_text", content_rowid="url_id",
  tokenize="porter unicode61 remove_diacritics 2"
);

CREATE VIEW page_text_cjk AS
SELECT url_id, title, body FROM page_text WHERE cjk = 1;

CREATE VIRTUAL TABLE page_text_trigram USING fts5(
  title, body,
  content="page_text_cjk", content_rowid="url_id",
  tokenize="trigram remove_diacritics 1"
);

-- bm25 weights per column: a word in the title counts ten times one in the body, in a heading five times.
-- Stored in the index, so any client's `ORDER BY rank` ranks the same way.
INSERT INTO page_text_fts(page_text_fts, rank) VALUES ('rank', 'bm25(10.0, 5.0, 2.0, 1.0)');
INSERT INTO page_text_trigram(page_text_trigram, rank) VALUES ('rank', 'bm25(10.0, 1.0)');

CREATE TRIGGER page_text_insert AFTER INSERT ON page_text BEGIN
  INSERT INTO page_text_fts (rowid, title, headings, description, body)
  VALUES (new.url_id, new.title, new.headings, new.description, new.body);
  INSERT INTO page_text_trigram (rowid, title, body) SELECT new.url_id, new.title, new.body WHERE new.cjk = 1;
END;

-- External content: the index must be told the old values to remove them.
CREATE TRIGGER page_text_delete AFTER DELETE ON page_text BEGIN
  INSERT INTO page_text_fts (page_text_fts, rowid, title, headings, description, body)
  VALUES ('delete', old.url_id, old.title, old.headings, old.description, old.body);
  INSERT INTO page_text_trigram (page_text_trigram, rowid, title, body) SELECT 'delete', old.url_id, old.title, old.body WHERE old.cjk = 1;
END;

CREATE TRIGGER page_text_update AFTER UPDATE ON page_text BEGIN
  INSERT INTO page_text_fts (page_text_fts, rowid, title, headings, description, body)
  VALUES ('delete', old.url_id, old.title, old.headings, old.description, old.body);
  INSERT INTO page_text_trigram (page_text_trigram, rowid, title, body) SELECT 'delete', old.url_id, old.title, old.body WHERE old.cjk = 1;
  INSERT INTO page_text_fts (rowid, title, headings, description, body)
  VALUES (new.url_id, new.title, new.headings, new.description, new.body);
  INSERT INTO page_text_trigram (rowid, title, body) SELECT new.url_id, new.title, new.body WHERE new.cjk = 1;
END;

-- Search from any SQLite client: select url, title from search where search match 'word' order by rank.
CREATE VIEW search AS
SELECT t.url, t.title, t.headings, t.description, t.body, f.rank, f.page_text_fts AS search
FROM page_text_fts f JOIN page_text t ON t.url_id = f.rowid;
