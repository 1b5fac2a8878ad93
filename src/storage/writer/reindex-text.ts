import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { PageText } from '../../pipeline/ports.js';
import { CaptureWriter } from './capture-writer.js';
import { PageTextWriter } from './page-text-writer.js';
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
  /**
   * HTML pages that had no text, or text of an older extraction, when the run began, and pages with CJK
   * text that had no CJK words (stored before migration 0019, or merged from such an archive).
   */
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

interface WordsPending {
  url_id: number;
  title: string | null;
  body: string;
}

/** Pages with CJK text and no CJK words, whose text is current (older text gets its words when extracted again). */
const wordsMissing = (version: number) => `FROM page_text t
  WHERE t.cjk = 1 AND t.text_version >= ${version} AND NOT EXISTS (SELECT 1 FROM page_text_cjk_words w WHERE w.rowid = t.url_id)`;

/**
 * Builds `page_text` (and so both search indexes, through its triggers) for
 * the HTML pages that have none (those stored before the archive had search,
 * or crawled with --no-text) or whose text an older version of extraction made
 * (`options.version`). Only rows still to do are read, in url id
 * order, a batch per transaction, so an interrupted run loses at most one
 * batch and a second run finishes the job. Then it segments the stored text of
 * pages with CJK text that have no CJK words yet (no HTML is read again). Each batch is handed back to the
 * event loop so that Ctrl-C is heard between batches.
 */
export async function reindexText(db: Database, options: ReindexOptions): Promise<ReindexResult> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const unindexed = unindexedPagesFrom(options.version);
  if (!Number.isSafeInteger(options.version)) throw new TypeError(`text version must be an integer, got ${options.version}`);
  const missing = wordsMissing(options.version);
  const total =
    (db.prepare(`${unindexed} SELECT count(*) AS n FROM unindexed`).get() as { n: number }).n +
    (db.prepare(`SELECT count(*) AS n ${missing}`).get() as { n: number }).n;
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
  const nextWords: Statement<[number, number], WordsPending> = db.prepare(
    `SELECT t.url_id, t.title, t.body ${missing} AND t.url_id > ? ORDER BY t.url_id LIMIT ?`,
  );
  const text = new PageTextWriter(db);
  const storeWords: Transaction<(rows: WordsPending[]) => void> = db.transaction((rows: WordsPending[]) => {
    for (const row of rows) text.words(row.url_id, row.title, row.body);
  });
  let indexed = 0;
  // One pass after the other, each in url id order, a batch per transaction.
  const pass = async <Row extends { url_id: number }>(
    read: Statement<[number, number], Row>,
    write: Transaction<(rows: Row[]) => void>,
  ) => {
    for (let after = 0; ;) {
      if (options.stopped?.()) return false;
      const rows = read.all(after, batchSize);
      if (rows.length === 0) return true;
      write.immediate(rows);
      indexed += rows.length;
      after = rows[rows.length - 1]!.url_id;
      options.onProgress?.(indexed, total);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const done = (await pass(next, store)) && (await pass(nextWords, storeWords));
  return { indexed, total, stopped: !done };
}
