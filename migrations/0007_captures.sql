-- Re-crawls keep every capture.
--
-- A crawl is a `crawl` (or `recrawl`) command and the resumes that finish it; each run records the
-- crawl it belongs to (crawl 1 is the first). Every URL records the crawl it was last queued in,
-- so a re-crawl can queue a URL the archive already holds once, and only once, per crawl.
ALTER TABLE run ADD COLUMN crawl INTEGER NOT NULL DEFAULT 1;
ALTER TABLE url ADD COLUMN crawl INTEGER NOT NULL DEFAULT 1;

-- The response row stays the latest capture of its URL: `pages` reads it, as before. When a new
-- capture replaces it, the trigger below first copies the row it replaces into `capture`, so
-- capture holds every earlier one and a first crawl writes nothing twice. Bodies are stored once
-- by hash, so an unchanged body costs a capture row only.
--
-- revalidated = 1: the server answered a conditional request with 304 Not Modified. The row's
-- status, headers, body, title and text are those of the capture it confirmed (what a cache would
-- serve); its wire columns (http_version, reason, raw_headers and the request) are the 304
-- exchange's, so an export can write it as a revisit.
ALTER TABLE response ADD COLUMN revalidated INTEGER NOT NULL DEFAULT 0 CHECK (revalidated IN (0, 1));

CREATE TABLE capture (
  id              INTEGER PRIMARY KEY,
  url_id          INTEGER NOT NULL REFERENCES url (id),
  run_id          INTEGER NOT NULL REFERENCES run (id),
  status          INTEGER NOT NULL,
  content_type    TEXT,
  charset         TEXT,
  location        TEXT,
  headers         TEXT NOT NULL,
  body_id         INTEGER NOT NULL REFERENCES body (id),
  fetched_at      TEXT NOT NULL,
  elapsed_ms      INTEGER NOT NULL,
  links_found     INTEGER NOT NULL,
  links_new       INTEGER NOT NULL,
  title           TEXT,
  canonical       TEXT,
  robots          TEXT,
  links_dropped   INTEGER NOT NULL DEFAULT 0,
  http_version    TEXT,
  reason          TEXT,
  raw_headers     BLOB,
  request_method  TEXT,
  request_target  TEXT,
  request_headers BLOB,
  remote_ip       TEXT,
  started_at      TEXT,
  revalidated     INTEGER NOT NULL DEFAULT 0
) STRICT;
-- One URL's captures in time order: what replay's "nearest capture" and a URL's timeline read.
CREATE INDEX capture_url ON capture (url_id, fetched_at);

-- A new fetched_at is a new capture; an update that keeps it (none today) is not one.
CREATE TRIGGER response_keeps_captures BEFORE UPDATE ON response
WHEN new.fetched_at IS NOT old.fetched_at
BEGIN
  INSERT INTO capture (url_id, run_id, status, content_type, charset, location, headers, body_id, fetched_at,
                       elapsed_ms, links_found, links_new, title, canonical, robots, links_dropped, http_version,
                       reason, raw_headers, request_method, request_target, request_headers, remote_ip, started_at,
                       revalidated)
  VALUES (old.url_id, old.run_id, old.status, old.content_type, old.charset, old.location, old.headers, old.body_id,
          old.fetched_at, old.elapsed_ms, old.links_found, old.links_new, old.title, old.canonical, old.robots,
          old.links_dropped, old.http_version, old.reason, old.raw_headers, old.request_method, old.request_target,
          old.request_headers, old.remote_ip, old.started_at, old.revalidated);
END;

-- The latest capture of each URL, as before, with the crawl it was made in and whether it was a 304.
DROP VIEW pages;
CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
       r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url,
       r.links_dropped,
       r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target, r.request_headers,
       r.remote_ip, r.started_at, b.sha1,
       rn.crawl, r.revalidated
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id
JOIN run rn ON rn.id = r.run_id;

-- Every capture of every URL, earlier ones and the latest (latest = 1), oldest first per URL.
CREATE VIEW captures AS
SELECT u.url, rn.crawl, c.fetched_at, c.status, c.content_type, c.location, c.revalidated,
       lower(hex(b.hash)) AS sha256, b.sha1, b.size, b.data AS body, c.headers, c.charset, c.title,
       c.elapsed_ms, c.http_version, c.reason, c.raw_headers, c.request_method, c.request_target,
       c.request_headers, c.remote_ip, c.started_at, u.kind, 0 AS latest
FROM capture c
JOIN url u ON u.id = c.url_id
JOIN body b ON b.id = c.body_id
JOIN run rn ON rn.id = c.run_id
UNION ALL
SELECT u.url, rn.crawl, r.fetched_at, r.status, r.content_type, r.location, r.revalidated,
       lower(hex(b.hash)) AS sha256, b.sha1, b.size, b.data AS body, r.headers, r.charset, r.title,
       r.elapsed_ms, r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target,
       r.request_headers, r.remote_ip, r.started_at, u.kind, 1 AS latest
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id
JOIN run rn ON rn.id = r.run_id;

-- What changed between the latest crawl and the one before it, per URL captured in either (its last
-- capture in each): new, gone (404/410 now, or not captured this time), redirected (a redirect now,
-- to a new place), unchanged (a 304, or the same payload digest), changed (another digest).
-- `crawlite diff --from A --to B` compares any two crawls the same way.
CREATE VIEW changes AS
WITH bounds AS (SELECT max(crawl) AS to_crawl, max(crawl) - 1 AS from_crawl FROM run),
last AS (
  SELECT c.url, c.crawl, c.status, c.sha256, c.location, c.revalidated, c.fetched_at,
         row_number() OVER (PARTITION BY c.url, c.crawl ORDER BY c.fetched_at DESC) AS n
  FROM captures c, bounds
  WHERE c.crawl IN (bounds.from_crawl, bounds.to_crawl)
),
a AS (SELECT l.* FROM last l, bounds WHERE l.n = 1 AND l.crawl = bounds.from_crawl),
b AS (SELECT l.* FROM last l, bounds WHERE l.n = 1 AND l.crawl = bounds.to_crawl)
SELECT b.url,
       CASE
         WHEN a.url IS NULL THEN 'new'
         WHEN b.status IN (404, 410) AND a.status NOT IN (404, 410) THEN 'gone'
         WHEN b.status BETWEEN 300 AND 399 AND (a.status NOT BETWEEN 300 AND 399 OR b.location IS NOT a.location) THEN 'redirected'
         WHEN b.revalidated = 1 OR b.sha256 = a.sha256 THEN 'unchanged'
         ELSE 'changed'
       END AS change,
       (SELECT from_crawl FROM bounds) AS from_crawl, (SELECT to_crawl FROM bounds) AS to_crawl,
       a.status AS from_status, b.status AS to_status, a.sha256 AS from_sha256, b.sha256 AS to_sha256,
       a.fetched_at AS from_fetched_at, b.fetched_at AS to_fetched_at
FROM b LEFT JOIN a ON a.url = b.url
UNION ALL
SELECT a.url, 'gone', (SELECT from_crawl FROM bounds), (SELECT to_crawl FROM bounds),
       a.status, NULL, a.sha256, NULL, a.fetched_at, NULL
FROM a
WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.url = a.url);
