-- No silent loss: a response whose links were cut by --max-links-per-page
-- (or a sitemap's entries by --max-pages) says how many link references
-- were not read, in the pages and fetches views.

ALTER TABLE response ADD COLUMN links_dropped INTEGER NOT NULL DEFAULT 0;

DROP VIEW pages;
CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
       r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url,
       r.links_dropped
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;

DROP VIEW fetches;
CREATE VIEW fetches AS
SELECT u.url, r.status, r.location AS next_url, b.size, r.content_type, r.charset AS encoding,
       r.links_found, r.links_new, r.fetched_at, r.elapsed_ms, u.tries, u.state, r.links_dropped
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;
