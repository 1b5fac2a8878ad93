-- Politeness held across all workers: one row per origin, locked by each claim
-- there, so claims on an origin are decided one at a time.
CREATE TABLE origin_politeness (
  origin         text PRIMARY KEY,
  -- No request may start on the origin before this (the crawl's --delay, or Crawl-delay, after the last claim); null: any time.
  next_start_at  timestamptz,
  -- Crawl-delay of the origin's robots.txt for the crawl's user agent, once a worker has fetched it.
  crawl_delay_ms integer
);

-- Requests in flight on an origin are its live leases: a dead worker's stop counting when they run out.
CREATE INDEX url_leased ON url (origin) WHERE state = 'leased';
