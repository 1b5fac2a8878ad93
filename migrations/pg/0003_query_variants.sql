-- --max-per-path held across all workers: how many URLs each origin+path with
-- a query has added to the frontier. A commit adding variants of a path locks
-- its row, so the cap is judged for one commit at a time.
CREATE TABLE query_variants (
  path  text PRIMARY KEY,
  count integer NOT NULL
);

-- A crawl under way keeps its cap: the variants already in the frontier count.
INSERT INTO query_variants (path, count)
SELECT split_part(url, '?', 1), count(*) FROM url WHERE position('?' IN url) > 0 GROUP BY 1;
