import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { PageText } from '../../pipeline/ports.js';
import { CaptureWriter } from './capture-writer.js';
import { bodyBytes } from '../archive/body-bytes.js';
import { unindexedPagesFrom } from '../query/search-archive.js';

/** What extraction makes of a stored HTML body (the crawl's own code, passed in: storage parses no HTML). */
export type ExtractText = (body: Buffer, contentType: string | null) => { title: string | null; text: PageText };

export interface ReindexOptions {
  extract: ExtractText;
  /** The version of text extraction `extract` is: pages whose text an older one made are extracted again. */
  version: number;
  /** Pages per transaction: a kill loses at most one batch, and a rerun starts where the last one ended. */
  batchSize?: number;
  /** Told after each batch commits. */
  onProgress?: (done: number, total: number) => void;
  /** Asked between batches; true ends the run (what is committed stays). */
  stopped?: () => boolean;
}

export interface ReindexResult {
  indexed: number;
  /** HTML pages that had no text, or text of an older extraction, when the run began. */
  total: number;
  stopped: boolean;
}

const BATCH_SIZE = 200;

interface Pending {
  url_id: number;
  url: string;
  content_type: string | null;
  data: Buffer;
  size: number;
}

/**
 * Builds `page_text` (and so both search indexes, through its triggers) for
 * the HTML pages that have none (those stored before the archive had search,
 * or crawled with --no-text) or whose text an older version of extraction made
 * (`options.version`). Only rows still to do are read, in url id
 * order, a batch per transaction, so an interrupted run loses at most one
 * batch and a second run finishes the job. Each batch is handed back to the
 * event loop so that Ctrl-C is heard between batches.
 */
export async function reindexText(db: Database, options: ReindexOptions): Promise<ReindexResult> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const unindexed = unindexedPagesFrom(options.version);
  const total = (db.prepare(`${unindexed} SELECT count(*) AS n FROM unindexed`).get() as { n: number }).n;
  const next: Statement<[number, number], Pending> = db.prepare(`${unindexed}
    SELECT un.url_id, un.url, un.content_type, b.data, b.size FROM unindexed un JOIN body b ON b.id = un.body_id
    WHERE un.url_id > ? ORDER BY un.url_id LIMIT ?`);
  const writer = new CaptureWriter(db);
  const store: Transaction<(rows: Pending[]) => void> = db.transaction((rows: Pending[]) => {
    for (const row of rows) {
      const { title, text } = options.extract(bodyBytes(row.data, row.size), row.content_type);
      writer.pageText(row.url_id, row.url, { title, text });
    }
  });
  let indexed = 0;
  let after = 0;
  for (;;) {
    if (options.stopped?.()) return { indexed, total, stopped: true };
    const rows = next.all(after, batchSize);
    if (rows.length === 0) return { indexed, total, stopped: false };
    store.immediate(rows);
    indexed += rows.length;
    after = rows[rows.length - 1]!.url_id;
    options.onProgress?.(indexed, total);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
