-- The gap between request starts on an origin counts from when a request went
-- out, not from when it was claimed: the claim whose request has not gone out
-- yet holds the origin's next start back. It is named by its URL and lease
-- (url.id, url.claims), so it stops holding anything back once that lease is
-- committed, released or runs out (its worker died before sending).
ALTER TABLE origin_politeness
  ADD COLUMN unsent_id     bigint,
  ADD COLUMN unsent_claims integer;
