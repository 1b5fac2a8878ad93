-- What a page rendered in a browser (crawl --browser) looked like: one image per page capture, keyed
-- like the capture (its URL and fetched_at), so earlier captures keep theirs.
CREATE TABLE screenshot (
  url_id INTEGER NOT NULL REFERENCES url (id),
  fetched_at TEXT NOT NULL,
  type TEXT NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (url_id, fetched_at)
) WITHOUT ROWID;

CREATE VIEW screenshots AS
SELECT u.url, s.fetched_at, s.type, length(s.data) AS size, s.data
FROM screenshot s
JOIN url u ON u.id = s.url_id;
