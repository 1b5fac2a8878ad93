-- Steering a shared crawl's workers. `crawlite control postgres://...` only appends a request; the first
-- worker that polls applies it (one transaction: the setting it changes, or the exclusion and the shared
-- queue it prunes) and records its outcome; every worker follows the settings and exclusions as they stand.
CREATE TABLE control_request (
  id           bigserial PRIMARY KEY,
  requested_at timestamptz NOT NULL DEFAULT now(),
  requested_by text NOT NULL,
  command      text NOT NULL CHECK (command IN ('pause', 'resume', 'stop', 'set', 'exclude', 'include')),
  -- set: a JSON object of the settings changed; exclude and include: the regular expression.
  argument     text,
  applied_at   timestamptz,
  outcome      text
);
CREATE INDEX control_request_waiting ON control_request (id) WHERE applied_at IS NULL;

-- The controls as they stand for every worker: paused ('1' or '0'), paused_reason, concurrency, per_host, delay_ms.
CREATE TABLE control_setting (
  name   text PRIMARY KEY,
  value  text NOT NULL,
  set_at timestamptz NOT NULL DEFAULT now()
);

-- Exclusions added while the crawl runs; the URLs one made `skipped` have error_code 'excluded_live'.
CREATE TABLE live_exclusion (
  pattern  text PRIMARY KEY,
  added_at timestamptz NOT NULL DEFAULT now()
);
