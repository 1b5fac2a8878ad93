-- How much of each page's text is the text of its links, 0 to 1: near 1 on an index, a table of contents
-- or a site map, low on a page of prose. Search ranks lists below the pages they point to (search-ranking.ts).
-- Written with the page's page_text row; pages whose text an older extraction made (text_version < 3) have
-- no row and are ranked as prose until `crawlite reindex` reads them again.
CREATE TABLE page_link_share (
  url_id     INTEGER PRIMARY KEY,
  link_share REAL NOT NULL CHECK (link_share BETWEEN 0 AND 1)
) STRICT;
