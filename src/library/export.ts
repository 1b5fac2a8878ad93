import type { ExportSummary } from '../export/export-summary.js';
import { version as packageVersion } from './package-version.js';

/** An archive written as a WARC (with its CDXJ index) and/or a WACZ, as `crawlite export`. */
export interface ExportInput {
  /** The archive file; read from one snapshot, so a crawl may be writing it. */
  db: string;
  /** A WARC/1.1 file, one gzip member per record. */
  warc?: string;
  /** A CDXJ index of the WARC (needs `warc`, or indexes the WARC inside `wacz`). */
  cdxj?: string;
  /** A WACZ 1.1.1 package: WARC, index, pages list. */
  wacz?: string;
  /** Overwrite output files that exist. */
  force?: boolean;
  /** Add URLs that failed without a response, as metadata records with their error. */
  includeFailed?: boolean;
  /** Who made the crawl, for the warcinfo record. */
  operator?: string;
  /** What the crawl is, for the warcinfo record and the WACZ. */
  description?: string;
  /** The WACZ's title; by default named after the crawl's first root. */
  title?: string;
  /** The software version named in the warcinfo record; this package's by default. */
  version?: string;
  /** Aborting it stops the export: nothing is left behind, and the promise rejects. */
  signal?: AbortSignal;
  /** Told as the WARC grows. */
  onProgress?: (progress: ExportProgress) => void;
}

export interface ExportProgress {
  /** Bytes of WARC written so far. */
  bytes: number;
  responses: number;
}

/** What the export wrote: its records by kind, the WARC's bytes, and the files, in the order asked. */
export type ExportReport = ExportSummary;

/**
 * Exports an archive. Every output is written under a temporary name and renamed into place only once
 * all are complete; on any failure (or an abort) none is left behind.
 */
export async function exportArchive(input: ExportInput): Promise<ExportReport> {
  const { runExport } = await import('../export/run-export.js');
  const { onProgress } = input;
  return runExport({
    db: input.db,
    ...(input.warc !== undefined ? { warc: input.warc } : {}),
    ...(input.cdxj !== undefined ? { cdxj: input.cdxj } : {}),
    ...(input.wacz !== undefined ? { wacz: input.wacz } : {}),
    force: input.force === true,
    includeFailed: input.includeFailed === true,
    ...(input.operator !== undefined ? { operator: input.operator } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.title !== undefined ? { title: input.title } : {}),
    version: input.version ?? packageVersion,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(onProgress ? { progress: (bytes: number, responses: number) => onProgress({ bytes, responses }) } : {}),
  });
}
