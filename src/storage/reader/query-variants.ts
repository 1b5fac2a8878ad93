/** The most URLs one fuzzy lookup reads: a page with thousands of query variants costs what one with a hundred does. */
export const QUERY_VARIANTS_LIMIT = 100;

/**
 * URLs with a stored response that are one URL with another query or none: its form without a query,
 * and those that start with it and `?`, at most `:limit`. A lookup and one range on the url table's
 * UNIQUE index, through the pages view (only URLs with a response); no ORDER BY, which would read the
 * whole range to sort it: the index gives the range in URL order anyway. Stored URLs are serialised
 * (ASCII), so every one that starts with the prefix sorts below prefix + U+10FFFF.
 */
export const QUERY_VARIANTS_SQL = `SELECT url FROM pages WHERE url = :bare OR (url >= :prefix AND url < :prefixEnd) LIMIT :limit`;

/** The parameters of QUERY_VARIANTS_SQL for a URL `bare` that has no query (and no fragment). */
export const queryVariantsParams = (bare: string) => ({
  bare,
  prefix: `${bare}?`,
  prefixEnd: `${bare}?\u{10FFFF}`,
  limit: QUERY_VARIANTS_LIMIT,
});
