-- Steering a running crawl from another process. `crawlite control` and serve's live page only append a
-- row to control_request; the crawl's own writer applies each, in order, to the crawl's state (its
-- settings, its exclusions, its queue) and records when and what came of it. A request that no crawl is
-- running to apply waits for the next run of the archive.
CREATE TABLE control_request (
  id           INTEGER PRIMARY KEY,
  requested_at TEXT NOT NULL,
  -- Who asked: 'control' (the command line) or 'serve' (the live page).
  requested_by TEXT NOT NULL,
  command      TEXT NOT NULL CHECK (command IN ('pause', 'resume', 'stop', 'set', 'exclude', 'include')),
  -- set: a JSON object of the settings changed ({"concurrency": 4, "per_host": 2, "delay_ms": 500,
  -- "min_free_disk": 1000000000}); exclude and include: the regular expression; otherwise NULL.
  argument     TEXT,
  -- When the crawl applied it; NULL while it waits.
  applied_at   TEXT,
  -- What came of it ("paused", "1519 queued URLs skipped"), or why it was refused.
  outcome      TEXT
) STRICT;
CREATE INDEX control_request_waiting ON control_request (id) WHERE applied_at IS NULL;

-- The crawl's controls as they stand, kept across runs: a crawl killed while paused resumes paused.
-- Names: paused ('1' or '0', and paused_reason), concurrency, per_host, delay_ms, min_free_disk.
-- A setting without a row is the crawl's option.
CREATE TABLE control_setting (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL,
  set_at TEXT NOT NULL
) STRICT;

-- Exclusions added while the crawl runs, beside the --exclude patterns stored with its options. The URLs
-- one made `skipped` have error_code 'excluded_live' and an error naming the pattern.
CREATE TABLE live_exclusion (
  pattern  TEXT PRIMARY KEY,
  added_at TEXT NOT NULL
) STRICT;

-- What only the running crawl knows, written by it about once a second: one row, the last run's.
CREATE TABLE crawl_live (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  pid         INTEGER NOT NULL,
  -- 'running', 'paused', 'stopping' or 'ended'.
  state       TEXT NOT NULL,
  -- Why it is paused: 'control', 'serve', 'disk' (free disk under --min-free-disk), or NULL.
  paused_by   TEXT,
  -- HTTP requests on the wire now.
  in_flight   INTEGER NOT NULL,
  concurrency INTEGER NOT NULL,
  per_host    INTEGER NOT NULL,
  delay_ms    INTEGER,
  started_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
) STRICT;
