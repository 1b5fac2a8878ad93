-- What a faithful WARC record needs, kept per response from now on: the
-- response's status line and header block exactly as received (order, case,
-- repeats), the request as sent, the server's IP address and when the request
-- started, and the payload's SHA-1 in the form the WARC world uses. Responses
-- stored before this migration have NULL here: export rebuilds their header
-- block from the JSON headers and says so.

-- 'HTTP/1.1' as received, and the reason phrase ('OK', 'Not Found', '' when the server sent none).
ALTER TABLE response ADD COLUMN http_version TEXT;
ALTER TABLE response ADD COLUMN reason TEXT;
-- The header block as received: 'Name: value' lines, each ending in CRLF, no status line, no blank line.
ALTER TABLE response ADD COLUMN raw_headers BLOB;
-- The request as sent: method, target as on the request line ('/a?b'), and its header block in the same form.
ALTER TABLE response ADD COLUMN request_method TEXT;
ALTER TABLE response ADD COLUMN request_target TEXT;
ALTER TABLE response ADD COLUMN request_headers BLOB;
ALTER TABLE response ADD COLUMN remote_ip TEXT;
-- When the request started: ISO 8601 UTC with milliseconds (fetched_at is when the response was read).
ALTER TABLE response ADD COLUMN started_at TEXT;

-- 'sha1:' and the base32 (RFC 4648, upper case, no padding) SHA-1 of the stored body: WARC-Payload-Digest.
ALTER TABLE body ADD COLUMN sha1 TEXT;

DROP VIEW pages;
CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
       r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url,
       r.links_dropped,
       r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target, r.request_headers,
       r.remote_ip, r.started_at, b.sha1
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;
