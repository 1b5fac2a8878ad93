-- The per-path count of query variants (--max-per-path) is kept by the
-- crawler's insert of a new URL with a query, not by a trigger: the trigger
-- made every URL insert pay for it (about a fifth of a page's write), though
-- most URLs have no query. Counts already kept stay as they are.

DROP TRIGGER url_count_query_variants;
