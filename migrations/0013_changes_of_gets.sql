-- What changed between two crawls is told by each URL's GETs: the answer a form or a script's POST got
-- (kept in captures since migration 11, and by crawl --browser) is not what the URL's page says.
DROP VIEW changes;
CREATE VIEW changes AS
WITH bounds AS (SELECT max(crawl) AS to_crawl, max(crawl) - 1 AS from_crawl FROM run),
last AS (
  SELECT c.url, c.crawl, c.status, c.sha256, c.location, c.revalidated, c.fetched_at,
         row_number() OVER (PARTITION BY c.url, c.crawl ORDER BY c.fetched_at DESC) AS n
  FROM captures c, bounds
  WHERE c.crawl IN (bounds.from_crawl, bounds.to_crawl) AND coalesce(upper(c.request_method), 'GET') = 'GET'
),
a AS (SELECT l.* FROM last l, bounds WHERE l.n = 1 AND l.crawl = bounds.from_crawl),
b AS (SELECT l.* FROM last l, bounds WHERE l.n = 1 AND l.crawl = bounds.to_crawl)
SELECT b.url,
       CASE
         WHEN a.url IS NULL THEN 'new'
         WHEN b.status IN (404, 410) AND a.status NOT IN (404, 410) THEN 'gone'
         WHEN b.status BETWEEN 300 AND 399 AND (a.status NOT BETWEEN 300 AND 399 OR b.location IS NOT a.location) THEN 'redirected'
         WHEN b.revalidated = 1 OR b.sha256 = a.sha256 THEN 'unchanged'
         ELSE 'changed'
       END AS change,
       (SELECT from_crawl FROM bounds) AS from_crawl, (SELECT to_crawl FROM bounds) AS to_crawl,
       a.status AS from_status, b.status AS to_status, a.sha256 AS from_sha256, b.sha256 AS to_sha256,
       a.fetched_at AS from_fetched_at, b.fetched_at AS to_fetched_at
FROM b LEFT JOIN a ON a.url = b.url
UNION ALL
SELECT a.url, 'gone', (SELECT from_crawl FROM bounds), (SELECT to_crawl FROM bounds),
       a.status, NULL, a.sha256, NULL, a.fetched_at, NULL
FROM a
WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.url = a.url);
