-- What a WARC says of a capture that a crawl never makes, kept so an export writes it back:
--   truncated: WARC-Truncated, why the payload is not whole (length, time, disconnect, unspecified...);
--   request_body: what a request other than GET sent (a POST's form), from its request record.
-- A capture whose request is not a GET (or HEAD) is kept in `capture` only: it is never a URL's page.
ALTER TABLE response ADD COLUMN truncated TEXT;
ALTER TABLE response ADD COLUMN request_body BLOB;
ALTER TABLE capture ADD COLUMN truncated TEXT;
ALTER TABLE capture ADD COLUMN request_body BLOB;

DROP TRIGGER response_keeps_captures;

CREATE TRIGGER response_keeps_captures BEFORE UPDATE ON response
WHEN new.fetched_at IS NOT old.fetched_at OR new.status IS NOT old.status OR new.body_id IS NOT old.body_id
BEGIN
  INSERT INTO capture (url_id, run_id, status, content_type, charset, location, headers, body_id, fetched_at,
                       elapsed_ms, links_found, links_new, title, canonical, robots, links_dropped, http_version,
                       reason, raw_headers, request_method, request_target, request_headers, remote_ip, started_at,
                       revalidated, truncated, request_body)
  VALUES (old.url_id, old.run_id, old.status, old.content_type, old.charset, old.location, old.headers, old.body_id,
          old.fetched_at, old.elapsed_ms, old.links_found, old.links_new, old.title, old.canonical, old.robots,
          old.links_dropped, old.http_version, old.reason, old.raw_headers, old.request_method, old.request_target,
          old.request_headers, old.remote_ip, old.started_at, old.revalidated, old.truncated, old.request_body);
END;

DROP VIEW pages;
CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
       r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url,
       r.links_dropped,
       r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target, r.request_headers,
       r.remote_ip, r.started_at, b.sha1,
       rn.crawl, r.revalidated, r.truncated
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id
JOIN run rn ON rn.id = r.run_id;

DROP VIEW captures;
CREATE VIEW captures AS
SELECT u.url, rn.crawl, c.fetched_at, c.status, c.content_type, c.location, c.revalidated,
       lower(hex(b.hash)) AS sha256, b.sha1, b.size, b.data AS body, c.headers, c.charset, c.title,
       c.elapsed_ms, c.http_version, c.reason, c.raw_headers, c.request_method, c.request_target,
       c.request_headers, c.remote_ip, c.started_at, u.kind, 0 AS latest, c.truncated, c.request_body
FROM capture c
JOIN url u ON u.id = c.url_id
JOIN body b ON b.id = c.body_id
JOIN run rn ON rn.id = c.run_id
UNION ALL
SELECT u.url, rn.crawl, r.fetched_at, r.status, r.content_type, r.location, r.revalidated,
       lower(hex(b.hash)) AS sha256, b.sha1, b.size, b.data AS body, r.headers, r.charset, r.title,
       r.elapsed_ms, r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target,
       r.request_headers, r.remote_ip, r.started_at, u.kind, 1 AS latest, r.truncated, r.request_body
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id
JOIN run rn ON rn.id = r.run_id;
