-- The first schema. Tables may change in later migrations; the views at the
-- bottom (pages, links, urls, fetches) are the stable contract for users.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- One row per crawl process; elapsed time and pages/s are derived from it.
CREATE TABLE run (
  id         INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  ended_at   TEXT,
  ended_by   TEXT,
  options    TEXT NOT NULL
) STRICT;

-- The frontier and the seen set in one: the UNIQUE key on url is the
-- authority for deduplication, so it survives restarts.
CREATE TABLE url (
  id             INTEGER PRIMARY KEY,
  url            TEXT NOT NULL UNIQUE,
  state          TEXT NOT NULL CHECK (state IN ('queued', 'fetching', 'done', 'failed', 'skipped')),
  depth          INTEGER NOT NULL,
  redirect_hops  INTEGER NOT NULL,
  tries          INTEGER NOT NULL DEFAULT 0,
  error_code     TEXT,
  error          TEXT,
  found_from     INTEGER
) STRICT;

-- Claims walk queued rows in discovery order (breadth first) without
-- scanning the done ones.
CREATE INDEX url_queued ON url (id) WHERE state = 'queued';
CREATE INDEX url_state ON url (state);

-- Identical bodies are stored once.
CREATE TABLE body (
  id   INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  data BLOB NOT NULL
) STRICT;

-- The latest HTTP response of a URL.
CREATE TABLE response (
  url_id       INTEGER PRIMARY KEY REFERENCES url (id),
  run_id       INTEGER NOT NULL REFERENCES run (id),
  status       INTEGER NOT NULL,
  content_type TEXT,
  charset      TEXT,
  location     TEXT,
  headers      TEXT NOT NULL,
  body_id      INTEGER NOT NULL REFERENCES body (id),
  fetched_at   TEXT NOT NULL,
  elapsed_ms   INTEGER NOT NULL,
  links_found  INTEGER NOT NULL,
  links_new    INTEGER NOT NULL
) STRICT;
CREATE INDEX response_run ON response (run_id);

CREATE TABLE link (
  from_id INTEGER NOT NULL REFERENCES url (id),
  to_url  TEXT NOT NULL,
  kind    TEXT NOT NULL,
  PRIMARY KEY (from_id, to_url)
) STRICT, WITHOUT ROWID;

CREATE VIEW pages AS
SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
       r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;

CREATE VIEW links AS
SELECT f.url AS from_url, l.to_url, l.kind
FROM link l
JOIN url f ON f.id = l.from_id;

CREATE VIEW urls AS
SELECT url, state, depth, tries, error
FROM url;

-- The seed crawler's per-fetch report, one row per stored response.
CREATE VIEW fetches AS
SELECT u.url, r.status, r.location AS next_url, b.size, r.content_type, r.charset AS encoding,
       r.links_found, r.links_new, r.fetched_at, r.elapsed_ms, u.tries, u.state
FROM response r
JOIN url u ON u.id = r.url_id
JOIN body b ON b.id = r.body_id;
