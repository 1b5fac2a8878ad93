/** Matching queued URLs counted at most, and queued URLs read at most, by one preview. */
export const PREVIEW_MATCHES = 1000;
export const PREVIEW_SCAN_ROWS = 200_000;

/** The queued URLs a preview reads, first queued first (url_state's walk, no sort). */
export const QUEUED_URLS_SQL = "SELECT url FROM url WHERE state = 'queued' ORDER BY id LIMIT ?";

export interface ExclusionPreview {
  /** Queued URLs that match, up to the limit. */
  matches: number;
  /** Queued URLs read: the whole queue, unless `cut`. */
  scanned: number;
  /** Counting stopped at the limit of matches or of URLs read: `matches` is a floor ("at least"). */
  cut: boolean;
}

/**
 * How many queued URLs a pattern would make skipped, before it is asked for: the crawl tests a live
 * exclusion as it tests --exclude (a JavaScript RegExp against the URL). Bounded both ways; run in a
 * process that a deadline kills (startExclusionPreview in the query room), since a pattern can backtrack for ever.
 */
export function previewExclusion(
  queued: Iterable<unknown[]>,
  pattern: RegExp,
  limits = { matches: PREVIEW_MATCHES, scan: PREVIEW_SCAN_ROWS },
): ExclusionPreview {
  let matches = 0;
  let scanned = 0;
  for (const [url] of queued) {
    scanned += 1;
    if (pattern.test(String(url)) && ++matches >= limits.matches) return { matches, scanned, cut: true };
  }
  return { matches, scanned, cut: scanned >= limits.scan };
}
