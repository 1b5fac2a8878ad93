-- page_text_trigram again, with the tokenizer options every SQLite since 3.34 knows. 0006 made it with
-- `trigram remove_diacritics 1`, an option of SQLite 3.45: older SQLite (Debian 12's sqlite3 3.40, the
-- Python sqlite3 module beside it, sqlite-utils and Datasette on top) could not open the table, and the
-- tools that read every table refused the whole archive. Case is still folded; accents in this index are
-- kept: only a query with CJK characters reads it, and the word index still folds accents for every page.
-- The index reads its text from page_text (through the view page_text_cjk), so 'rebuild' refills it in SQL.
DROP TABLE page_text_trigram;

CREATE VIRTUAL TABLE page_text_trigram USING fts5(
  title, body,
  content="page_text_cjk", content_rowid="url_id",
  tokenize="trigram"
);

INSERT INTO page_text_trigram(page_text_trigram, rank) VALUES ('rank', 'bm25(10.0, 1.0)');
INSERT INTO page_text_trigram(page_text_trigram) VALUES ('rebuild');
