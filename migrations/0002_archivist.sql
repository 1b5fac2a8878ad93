-- Fetching like an archivist: what each URL is for, per-host scheduling,
-- the spelling fetched beside the deduplication key, and what pages say of
-- themselves (title, canonical, meta robots).

ALTER TABLE url ADD COLUMN kind TEXT NOT NULL DEFAULT 'page' CHECK (kind IN ('page', 'requisite', 'sitemap', 'robots'));
-- scheme://host[:port], so the scheduler can claim per host.
ALTER TABLE url ADD COLUMN origin TEXT NOT NULL DEFAULT '';
-- The URL as fetched, when it differs from the deduplication key in `url`.
ALTER TABLE url ADD COLUMN fetch_url TEXT;

UPDATE url SET origin = substr(url, 1, 7 + instr(substr(url, 9), '/'));

CREATE INDEX url_queued_origin ON url (origin, id) WHERE state = 'queued';

ALTER TABLE link ADD COLUMN nofollow INTEGER NOT NULL DEFAULT 0;

ALTER TABLE response ADD COLUMN title TEXT;
ALTER TABLE response ADD COLUMN canonical TEXT;
-- Directives of <meta name="robots"> found on the page, e.g. "noindex,noarchive".
ALTER TABLE response ADD COLUMN robots TEXT;

DROP VIEW pages;
CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
       r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;

DROP VIEW links;
CREATE VIEW links AS
SELECT f.url AS from_url, l.to_url, l.kind, l.nofollow
FROM link l
JOIN url f ON f.id = l.from_id;

DROP VIEW urls;
CREATE VIEW urls AS
SELECT url, state, depth, tries, error, kind
FROM url;

-- Crawler traps: how many URLs share one path with different queries, kept
-- as each URL is added, so --max-per-path holds across runs at no scan.
ALTER TABLE url ADD COLUMN path_key TEXT;
CREATE TABLE query_variants (
  path  TEXT PRIMARY KEY,
  count INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TRIGGER url_count_query_variants AFTER INSERT ON url WHEN NEW.path_key IS NOT NULL
BEGIN
  INSERT INTO query_variants (path, count) VALUES (NEW.path_key, 1)
  ON CONFLICT (path) DO UPDATE SET count = count + 1;
END;

-- Claims now go through url_queued_origin; the global queued index only cost writes.
DROP INDEX url_queued;
