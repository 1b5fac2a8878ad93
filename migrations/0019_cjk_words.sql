-- Chinese and Japanese words for search. page_text_trigram finds substrings of 3 characters or more; most
-- Chinese words are two (竹林, 東京, 天気), and the word index holds a whole run of Han or kana as one token.
-- page_text_cjk_words holds the title and body of each page with CJK text (page_text.cjk = 1) with every
-- run of Han and kana split into words by Intl.Segmenter, U+200B (a separator to unicode61, invisible)
-- between them. SQL cannot segment, so crawlite writes it beside page_text (PageTextWriter), and
-- `crawlite reindex` fills it for the pages stored before this migration.
-- A table with its own content rather than external content: deleting a row needs the very tokens it was
-- indexed with, which a segmentation done again (another ICU, another Node) might not give; the stored
-- text, and so the index, also stays readable by any SQLite client. Rows of pages whose page_text row is
-- gone are never answered: searches join page_text.
CREATE VIRTUAL TABLE page_text_cjk_words USING fts5(
  title, body,
  tokenize="porter unicode61 remove_diacritics 2"
);

INSERT INTO page_text_cjk_words(page_text_cjk_words, rank) VALUES ('rank', 'bm25(10.0, 1.0)');
