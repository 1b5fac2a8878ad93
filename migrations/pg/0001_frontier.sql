-- The frontier a crawl's workers share. Pages, bodies and links live in each
-- worker's SQLite shard; this database holds what must be decided in one place:
-- which URLs exist, who holds which, and what is finished.

-- One crawl per database: its roots and the options every worker runs with.
CREATE TABLE crawl (
  id         integer PRIMARY KEY CHECK (id = 1),
  roots      jsonb NOT NULL,
  options    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE url (
  id            bigserial PRIMARY KEY,
  -- The deduplication key; fetch_url is the spelling to request when it differs.
  url           text NOT NULL UNIQUE,
  fetch_url     text,
  origin        text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('page', 'requisite', 'sitemap', 'robots')),
  state         text NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed', 'skipped')),
  depth         integer NOT NULL,
  redirect_hops integer NOT NULL DEFAULT 0,
  tries         integer NOT NULL DEFAULT 0,
  -- Times handed out: a claim's lease token, so a URL claimed again (after its lease ran out) is a new lease.
  claims        integer NOT NULL DEFAULT 0,
  lease_owner   text,
  lease_until   timestamptz,
  -- The worker whose shard holds the URL's page.
  done_by       text,
  error_code    text,
  error         text
);

-- Claims look only at work: queued rows, and leased ones whose lease may have run out.
CREATE INDEX url_work ON url (origin, id) WHERE state IN ('queued', 'leased');
CREATE INDEX url_state ON url (state);

-- robots.txt answers (small), so every worker obeys the rules one of them fetched.
CREATE TABLE robots (
  url      text PRIMARY KEY,
  status   integer NOT NULL,
  body     bytea NOT NULL,
  location text
);

CREATE TABLE worker (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  last_seen  timestamptz NOT NULL DEFAULT now()
);
