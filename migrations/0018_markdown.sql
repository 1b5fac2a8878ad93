-- Each capture's main content as GitHub-flavoured Markdown, keyed like the capture (its URL and fetched_at),
-- as a screenshot is. Filled by `crawlite markdown` (not during the crawl: it costs more CPU per page than
-- the crawl itself). `version` is the Markdown conversion that made it: an older one is made again.
-- `reason` says why the Markdown is empty though the page is not (too large, unreadable).
CREATE TABLE markdown (
  url_id INTEGER NOT NULL REFERENCES url (id),
  fetched_at TEXT NOT NULL,
  title TEXT,
  markdown TEXT NOT NULL,
  reason TEXT,
  version INTEGER NOT NULL,
  PRIMARY KEY (url_id, fetched_at)
) STRICT, WITHOUT ROWID;

-- The latest capture's Markdown per URL, beside `pages`.
CREATE VIEW page_markdown AS
SELECT u.url, r.fetched_at, m.title, m.markdown, m.reason, m.version
FROM response r
JOIN url u ON u.id = r.url_id
JOIN markdown m ON m.url_id = r.url_id AND m.fetched_at = r.fetched_at;
