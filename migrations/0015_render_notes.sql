-- The bounds a render ran into (crawl --browser): the page was captured as it was when it reached them.
-- One row per bound, keyed like the capture it belongs to (its URL and fetched_at), as a screenshot is:
--   time          the load event did not come within its time (20 s)
--   network-idle  the network did not go quiet within its time (5 s), after load or after scrolling
--   scroll        the bottom was not reached within 20 screens or 5 s (a feed that grows as it is read)
--   screenshot    the picture was not taken within its time (the page is kept without one)
-- A page rendered within every bound has no row.
CREATE TABLE render_note (
  url_id INTEGER NOT NULL REFERENCES url (id),
  fetched_at TEXT NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (url_id, fetched_at, note)
) STRICT, WITHOUT ROWID;

CREATE VIEW render_notes AS
SELECT u.url, n.fetched_at, n.note
FROM render_note n
JOIN url u ON u.id = n.url_id;
