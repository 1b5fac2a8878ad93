// What an export wrote. A file of its own, free of storage's types, so the library can publish it
// without the SQLite driver's declarations.

/** The WARC's records, counted as they are written. */
export interface WarcSummary {
  /** Response and revisit records: one per capture. */
  responses: number;
  revisits: number;
  /** Failed URLs written as metadata records (`includeFailed`). */
  failed: number;
  /** Screenshots written as resource records; and those left out, stored with a type that is no image type (see screenshotType). */
  screenshots: number;
  screenshotsSkipped: number;
  /** Bytes of WARC. */
  bytes: number;
}

export interface ExportSummary extends WarcSummary {
  /** The files written, in the order asked. */
  written: string[];
}
