import type { ArchivePassInput } from './archive-pass-input.js';
import { runArchivePass } from './archive-pass.js';

/** The search index built for pages stored without text, or with text an older crawlite extracted. */
export type ReindexInput = ArchivePassInput;

export interface ReindexReport {
  /** Pages given their text by this run. */
  indexed: number;
  /** HTML pages that had no text, or text of an older extraction, when the run began. */
  total: number;
  /** Ended by the signal before every page was indexed. */
  stopped: boolean;
  /** From the archive opened to the last batch committed. */
  ms: number;
}

/** Indexes the text of every HTML page that has none (or an older extraction's), under the lock a crawl takes. */
export async function reindex(input: ReindexInput): Promise<ReindexReport> {
  const { extractPageText, TEXT_EXTRACTION_VERSION } = await import('../pipeline/parse/parse-response.js');
  return runArchivePass(input, (archive, hooks) =>
    archive.reindexText({ extract: extractPageText, version: TEXT_EXTRACTION_VERSION, ...hooks }),
  );
}
