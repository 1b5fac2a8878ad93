// What an import has read and stored so far. A file of its own, free of storage's types, so the
// library can publish it without the SQLite driver's declarations.

/** Counts of one import, told as it goes and at its end. */
export interface ImportTally {
  /** WARC files begun. */
  files: number;
  /** WARC records read, of every type. */
  records: number;
  /** Responses stored as pages (revisits included). */
  pages: number;
  /** Revisit records resolved to their original payload. */
  revisits: number;
  /**
   * Responses (of `pages`) the same as a capture stored already, in all but their WARC-Record-ID (same URL, time,
   * status, payload and header blocks): merged into it, nothing written. A WARC imported again merges all its records.
   */
  merged: number;
  /** Responses and revisits not imported, by reason code. */
  skipped: Record<string, number>;
  /** Screenshot records (resource, `urn:view:`) stored with the page capture they show. */
  screenshots: number;
  /** Records of other types (warcinfo, metadata, resource...) passed over, by type. */
  otherRecords: Record<string, number>;
  /** Damaged stretches of input reported (a truncated file, a wrong Content-Length, a file that is no WARC). */
  problems: number;
  /** Ended early by a stop. */
  stopped: boolean;
  /** Responses imported whose URL a WACZ lists as a page (pages/pages.jsonl, pages/extraPages.jsonl). */
  listedPages?: number;
  /** The crawl's roots, as a warcinfo record names them (crawlite's `crawlite-roots`), as archive keys. */
  roots: string[];
}

/** A tally of nothing read yet. */
export function emptyTally(): ImportTally {
  return {
    files: 0,
    records: 0,
    pages: 0,
    revisits: 0,
    merged: 0,
    screenshots: 0,
    skipped: {},
    otherRecords: {},
    problems: 0,
    stopped: false,
    roots: [],
  };
}
