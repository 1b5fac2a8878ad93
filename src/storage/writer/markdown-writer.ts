import type { Database, Statement, Transaction } from 'better-sqlite3';
import { bodyBytes } from '../archive/body-bytes.js';

/** What conversion makes of a stored HTML body (the markdown room's code, passed in: storage parses no HTML). */
export type ConvertMarkdown = (
  body: Buffer,
  contentType: string | null,
  url: string,
) => { title: string | null; markdown: string; reason?: string };

export interface FillMarkdownOptions {
  convert: ConvertMarkdown;
  /** The conversion's version: Markdown an older one made is made again. */
  version: number;
  /** Pages per transaction: a kill loses at most one batch, and memory holds one batch of bodies. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Asked between batches; true ends the run (what is committed stays). */
  stopped?: () => boolean;
}

export interface FillMarkdownResult {
  converted: number;
  /** HTML pages whose latest capture had no Markdown (or an older version's) when the run began. */
  total: number;
  stopped: boolean;
}

const BATCH_SIZE = 50;

interface Pending {
  url_id: number;
  url: string;
  fetched_at: string;
  content_type: string | null;
  data: Buffer;
  size: number;
}

function missingFrom(version: number): string {
  // Written into the SQL: a CTE takes no parameters of its own; an integer cannot inject anything.
  if (!Number.isSafeInteger(version)) throw new TypeError(`markdown version must be an integer, got ${version}`);
  return `
  WITH missing AS (
    SELECT r.url_id, u.url, r.fetched_at, r.content_type, r.body_id
    FROM response r JOIN url u ON u.id = r.url_id
    WHERE u.kind = 'page' AND r.status BETWEEN 200 AND 299
      AND (lower(trim(r.content_type)) LIKE 'text/html%' OR lower(trim(r.content_type)) LIKE 'application/xhtml+xml%')
      AND NOT EXISTS (SELECT 1 FROM markdown m WHERE m.url_id = r.url_id AND m.fetched_at = r.fetched_at AND m.version >= ${version})
  )`;
}

/**
 * Stores the Markdown of each HTML page's latest capture that has none (or an older version's), in url id
 * order, a batch per transaction: an interrupted run loses at most one batch and a second run goes on.
 * Each batch is handed back to the event loop so that Ctrl-C is heard between batches.
 */
export async function fillMarkdown(db: Database, options: FillMarkdownOptions): Promise<FillMarkdownResult> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const missing = missingFrom(options.version);
  const total = (db.prepare(`${missing} SELECT count(*) AS n FROM missing`).get() as { n: number }).n;
  const next: Statement<[number, number], Pending> = db.prepare(`${missing}
    SELECT mi.url_id, mi.url, mi.fetched_at, mi.content_type, b.data, b.size FROM missing mi JOIN body b ON b.id = mi.body_id
    WHERE mi.url_id > ? ORDER BY mi.url_id LIMIT ?`);
  const upsert = db.prepare(
    `INSERT INTO markdown (url_id, fetched_at, title, markdown, reason, version) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (url_id, fetched_at) DO UPDATE SET title = excluded.title, markdown = excluded.markdown, reason = excluded.reason, version = excluded.version`,
  );
  const store: Transaction<(rows: Pending[]) => void> = db.transaction((rows: Pending[]) => {
    for (const row of rows) {
      const made = options.convert(bodyBytes(row.data, row.size), row.content_type, row.url);
      upsert.run(row.url_id, row.fetched_at, made.title, made.markdown, made.reason ?? null, options.version);
    }
  });
  let converted = 0;
  let after = 0;
  for (;;) {
    if (options.stopped?.()) return { converted, total, stopped: true };
    const rows = next.all(after, batchSize);
    if (rows.length === 0) return { converted, total, stopped: false };
    store.immediate(rows);
    converted += rows.length;
    after = rows[rows.length - 1]!.url_id;
    options.onProgress?.(converted, total);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
