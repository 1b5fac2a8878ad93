-- How faithfully each page replays (`crawlite qa`, `crawl --browser --qa`): one row per page capture,
-- keyed like the capture (its URL and fetched_at) as screenshots are. Checking a capture again
-- replaces its row; a later capture of the URL gets a row of its own.
--   pixel_diff        share (0..1) of the stored screenshot's pixels the replay drew otherwise;
--                     NULL when the capture has no screenshot (a crawl without --browser)
--   text_match        similarity (0..1) of the replay's text to the text stored at capture;
--                     NULL when no text was stored
--   resources_loaded  requests of the replay answered below 400
--   resources_failed  requests of the replay answered 400 or more, or not at all
--   score             0..1, the weighted mean of the measures present (docs/qa.md)
--   error             why the replay could not be checked (then score is 0)
CREATE TABLE qa_check (
  url_id INTEGER NOT NULL REFERENCES url (id),
  fetched_at TEXT NOT NULL,
  pixel_diff REAL CHECK (pixel_diff BETWEEN 0 AND 1),
  text_match REAL CHECK (text_match BETWEEN 0 AND 1),
  resources_loaded INTEGER NOT NULL,
  resources_failed INTEGER NOT NULL,
  score REAL NOT NULL CHECK (score BETWEEN 0 AND 1),
  error TEXT,
  checked_at TEXT NOT NULL,
  PRIMARY KEY (url_id, fetched_at)
) STRICT, WITHOUT ROWID;

-- Worst first: what the UI's QA page and the summary read.
CREATE INDEX qa_check_score ON qa_check (score, url_id);

-- Worst first (ties in the order the URLs were found), so `SELECT * FROM qa` starts with the pages to look at.
CREATE VIEW qa AS
SELECT u.url, q.fetched_at, q.pixel_diff, q.text_match, q.resources_loaded, q.resources_failed, q.score, q.error, q.checked_at
FROM qa_check q
JOIN url u ON u.id = q.url_id
ORDER BY q.score, q.url_id;
