import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { CrawlRecord } from '../crawl-state/crawl-record.js';
import { hardenShardConnection } from '../archive/shard-file.js';

/*
 * Copies one archive (a shard) into another, as if both had been one crawl. The shard is attached
 * to the output's connection as `shard` and only read: every write names `main`. (better-sqlite3
 * is built without URI filenames, so the attachment cannot be opened `mode=ro`; the caller holds
 * the shard's crawl lock meanwhile, so no crawl writes it either.)
 *
 * Work goes in batches of shard URL ids, one transaction each. Every step of a batch is keyed by
 * content (a URL by its text, a body by its hash, a capture by its URL and fetched_at, a run by its
 * start, options and crawl), so doing a batch again changes nothing: a merge interrupted anywhere,
 * or the same shard merged twice, ends as a single merge does.
 */

/** Columns a response and a capture share, besides url_id, run_id and body_id. */
const CAPTURE_COLUMNS = [
  'status', 'content_type', 'charset', 'location', 'headers', 'fetched_at', 'elapsed_ms', 'links_found', 'links_new',
  'title', 'canonical', 'robots', 'links_dropped', 'http_version', 'reason', 'raw_headers', 'request_method',
  'request_target', 'request_headers', 'remote_ip', 'started_at', 'revalidated', 'truncated', 'request_body',
];
const from = (alias: string) => CAPTURE_COLUMNS.map((column) => `${alias}.${column}`).join(', ');

/** done beats failed beats skipped beats queued (and fetching, which nothing fetches in the output). */
const rank = (state: string) => `CASE ${state} WHEN 'done' THEN 0 WHEN 'failed' THEN 1 WHEN 'skipped' THEN 2 ELSE 3 END`;

/**
 * The same capture in the output (x) and the shard (c): same time, status, payload and method. Two
 * captures of one second that differ are both kept (imported WARCs have seconds only).
 */
const sameCapture = (x: string, c: string) =>
  `${x}.fetched_at = ${c}.fetched_at AND ${x}.status = ${c}.status AND ${x}.request_method IS ${c}.request_method
   AND (SELECT hash FROM main.body WHERE id = ${x}.body_id) = (SELECT hash FROM shard.body WHERE id = ${c}.body_id)`;

/** A shard's earlier captures (or its latest, where the output holds a later one) as capture rows, each once. */
const insertCaptures = (source: string, join: string) => `
  INSERT INTO main.capture (url_id, run_id, body_id, ${CAPTURE_COLUMNS.join(', ')})
  SELECT m.out_id, rm.out_id, mb.id, ${from('c')}
  FROM shard.${source} c
  ${join}
  JOIN temp.merge_run rm ON rm.shard_id = c.run_id
  JOIN shard.body sb ON sb.id = c.body_id
  JOIN main.body mb ON mb.hash = sb.hash
  WHERE c.url_id BETWEEN :lo AND :hi
    AND NOT EXISTS (SELECT 1 FROM main.capture x WHERE x.url_id = m.out_id AND ${sameCapture('x', 'c')})
    AND NOT EXISTS (SELECT 1 FROM main.response x WHERE x.url_id = m.out_id AND ${sameCapture('x', 'c')})
  ORDER BY c.url_id, c.fetched_at`;

const BATCH_SQL = [
  // URLs: one row per URL text; the better state wins (its tries and error with it), the least depth.
  `INSERT INTO main.url (url, state, depth, redirect_hops, tries, error_code, error, kind, origin, fetch_url, path_key, crawl)
   SELECT url, CASE state WHEN 'fetching' THEN 'queued' ELSE state END, depth, redirect_hops, tries, error_code, error,
          kind, origin, fetch_url, path_key, crawl
   FROM shard.url WHERE id BETWEEN :lo AND :hi ORDER BY id
   ON CONFLICT (url) DO UPDATE SET
     state = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.state ELSE state END,
     tries = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.tries ELSE tries END,
     error_code = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.error_code ELSE error_code END,
     error = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.error ELSE error END,
     depth = min(depth, excluded.depth),
     crawl = max(crawl, excluded.crawl)`,
  'DELETE FROM temp.merge_url',
  `INSERT INTO temp.merge_url (shard_id, out_id)
   SELECT su.id, mu.id FROM shard.url su JOIN main.url mu ON mu.url = su.url WHERE su.id BETWEEN :lo AND :hi`,
  // Where a URL was found from, when that page is already in the output.
  `UPDATE main.url SET found_from = (
     SELECT fo.id FROM temp.merge_url m
     JOIN shard.url su ON su.id = m.shard_id
     JOIN shard.url sf ON sf.id = su.found_from
     JOIN main.url fo ON fo.url = sf.url
     WHERE m.out_id = main.url.id)
   WHERE found_from IS NULL AND id IN (SELECT out_id FROM temp.merge_url)`,
  // Bodies by hash: read from the shard only when the output lacks them.
  `INSERT INTO main.body (hash, size, data, sha1)
   SELECT b.hash, b.size, b.data, b.sha1 FROM shard.body b
   WHERE b.id IN (SELECT body_id FROM shard.response WHERE url_id BETWEEN :lo AND :hi
                  UNION SELECT body_id FROM shard.capture WHERE url_id BETWEEN :lo AND :hi)
     AND NOT EXISTS (SELECT 1 FROM main.body x WHERE x.hash = b.hash)
   -- Two rows of one hash (a shard whose index was bypassed) hold the same bytes: the body check hashed both.
   ON CONFLICT (hash) DO NOTHING`,
  insertCaptures('capture', 'JOIN temp.merge_url m ON m.shard_id = c.url_id'),
  // Each shard response against the output's: 1 later (it becomes the latest), 0 the same capture, -1 earlier.
  'DELETE FROM temp.merge_win',
  `INSERT INTO temp.merge_win (shard_id, out_id, cmp)
   SELECT r.url_id, m.out_id,
          CASE WHEN o.url_id IS NULL OR o.fetched_at < r.fetched_at THEN 1 WHEN ${sameCapture('o', 'r')} THEN 0
               WHEN o.fetched_at = r.fetched_at THEN 1 ELSE -1 END
   FROM shard.response r JOIN temp.merge_url m ON m.shard_id = r.url_id LEFT JOIN main.response o ON o.url_id = m.out_id
   WHERE r.url_id BETWEEN :lo AND :hi`,
  insertCaptures('response', 'JOIN temp.merge_win m ON m.shard_id = c.url_id AND m.cmp = -1'),
  // A page's links and text are those of its latest capture, as a crawl keeps them.
  'DELETE FROM main.link WHERE from_id IN (SELECT out_id FROM temp.merge_win WHERE cmp = 1)',
  `INSERT INTO main.link (from_id, to_url, kind, nofollow)
   SELECT w.out_id, l.to_url, l.kind, l.nofollow FROM shard.link l JOIN temp.merge_win w ON w.shard_id = l.from_id AND w.cmp >= 0
   WHERE l.from_id BETWEEN :lo AND :hi
   ON CONFLICT DO NOTHING`,
  `DELETE FROM main.page_text WHERE url_id IN (
     SELECT out_id FROM temp.merge_win w WHERE cmp = 1 AND NOT EXISTS (SELECT 1 FROM shard.page_text t WHERE t.url_id = w.shard_id))`,
  // An upsert, not a replace: the update trigger tells the search indexes which text to remove.
  `INSERT INTO main.page_text (url_id, url, title, headings, description, body, cjk, text_version)
   SELECT w.out_id, t.url, t.title, t.headings, t.description, t.body, t.cjk, t.text_version
   FROM shard.page_text t JOIN temp.merge_win w ON w.shard_id = t.url_id AND w.cmp >= 0
   WHERE t.url_id BETWEEN :lo AND :hi
   ON CONFLICT (url_id) DO UPDATE SET url = excluded.url, title = excluded.title, headings = excluded.headings,
     description = excluded.description, body = excluded.body, cjk = excluded.cjk, text_version = excluded.text_version
   WHERE (SELECT cmp FROM temp.merge_win WHERE out_id = excluded.url_id) = 1`,
  // The later capture takes the response row; the trigger on response moves the one it replaces into capture.
  `INSERT INTO main.response (url_id, run_id, body_id, ${CAPTURE_COLUMNS.join(', ')})
   SELECT w.out_id, rm.out_id, mb.id, ${from('r')}
   FROM shard.response r
   JOIN temp.merge_win w ON w.shard_id = r.url_id AND w.cmp = 1
   JOIN temp.merge_run rm ON rm.shard_id = r.run_id
   JOIN shard.body sb ON sb.id = r.body_id
   JOIN main.body mb ON mb.hash = sb.hash
   WHERE r.url_id BETWEEN :lo AND :hi
   ON CONFLICT (url_id) DO UPDATE SET run_id = excluded.run_id, body_id = excluded.body_id,
     ${CAPTURE_COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ')}`,
];

export interface ShardSize {
  /** The highest URL id in the shard: batches run up to it. */
  maxUrlId: number;
  urls: number;
}

export interface BatchResult {
  urls: number;
  /** Responses of the shard in the batch (its pages, whichever capture ends up latest). */
  pages: number;
}

interface RunRow {
  id: number;
  started_at: string;
  ended_at: string | null;
  ended_by: string | null;
  options: string;
  crawl: number;
}

/** The SQL of a merge, on the output's connection, one shard attached at a time. */
export class ArchiveMerger {
  private batch: { statement: Statement; bound: boolean }[] | undefined;
  private reader: Db | undefined;

  constructor(private readonly db: Db) {
    // Checked before the merge, shards are still read as files others made: none of their SQL runs with privileges.
    hardenShardConnection(db);
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS merge_url (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS temp.merge_url_out ON merge_url (out_id);
             CREATE TEMP TABLE IF NOT EXISTS merge_run (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);
             CREATE TEMP TABLE IF NOT EXISTS merge_win (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL, cmp INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS temp.merge_win_out ON merge_win (out_id);`);
  }

  attach(path: string): void {
    // A read-only connection open across the attachment: the attachment is then never the last to
    // close a shard left in WAL mode (a killed crawl), so detaching does not checkpoint into it.
    this.reader = new Database(path, { readonly: true, fileMustExist: true });
    hardenShardConnection(this.reader);
    this.reader.prepare('SELECT count(*) FROM sqlite_schema').get();
    this.db.prepare('ATTACH ? AS shard').run(path);
    // Statements name the attached schema, so they are prepared once it exists.
    this.batch = BATCH_SQL.map((sql) => ({ statement: this.db.prepare(sql), bound: sql.includes(':lo') }));
  }

  detach(): void {
    this.batch = undefined;
    try {
      if (this.db.prepare("SELECT 1 FROM pragma_database_list WHERE name = 'shard'").get()) this.db.exec('DETACH shard');
    } finally {
      this.reader?.close();
      this.reader = undefined;
    }
  }

  size(): ShardSize {
    const row = this.db.prepare<[], { max: number | null; n: number }>('SELECT max(id) AS max, count(*) AS n FROM shard.url').get()!;
    return { maxUrlId: row.max ?? 0, urls: row.n };
  }

  /**
   * Copies the shard's runs (those the output lacks), its roots into the output's and its options
   * where the output has none, and prepares the run id map the batches use. One transaction.
   */
  begin(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM temp.merge_run');
      const find = this.db.prepare<[string, string, number], { id: number }>('SELECT id FROM main.run WHERE started_at = ? AND options = ? AND crawl = ?');
      const insert = this.db.prepare('INSERT INTO main.run (started_at, ended_at, ended_by, options, crawl) VALUES (?, ?, ?, ?, ?)');
      const end = this.db.prepare('UPDATE main.run SET ended_at = ?, ended_by = ? WHERE id = ? AND ended_at IS NULL');
      const map = this.db.prepare('INSERT INTO temp.merge_run (shard_id, out_id) VALUES (?, ?)');
      for (const run of this.db.prepare<[], RunRow>('SELECT id, started_at, ended_at, ended_by, options, crawl FROM shard.run ORDER BY id').all()) {
        const found = find.get(run.started_at, run.options, run.crawl);
        let outId: number;
        if (found) {
          outId = found.id;
          if (run.ended_at !== null) end.run(run.ended_at, run.ended_by, outId);
        } else {
          outId = Number(insert.run(run.started_at, run.ended_at, run.ended_by, run.options, run.crawl).lastInsertRowid);
        }
        map.run(run.id, outId);
      }
      // A lower bound of the URLs per path with a query: what --max-per-path reads if the output is resumed.
      this.db.exec(`INSERT INTO main.query_variants (path, count) SELECT path, count FROM shard.query_variants WHERE true
                    ON CONFLICT (path) DO UPDATE SET count = max(count, excluded.count)`);
      this.mergeDefinition();
    })();
  }

  private mergeDefinition(): void {
    const output = new CrawlRecord(this.db);
    const read = (key: string) => this.db.prepare<[string], { value: string }>('SELECT value FROM shard.meta WHERE key = ?').get(key)?.value;
    const shardRoots = read('roots');
    if (shardRoots === undefined) return;
    const roots = [...new Set([...(output.roots() ?? []), ...(JSON.parse(shardRoots) as string[])])];
    const options = output.options() ?? (JSON.parse(read('options') ?? '{}') as Record<string, unknown>);
    output.save(roots, options);
  }

  /** Merges the shard's URLs with ids lo..hi, and whatever `alsoInside` writes, in one transaction. */
  mergeBatch(lo: number, hi: number, alsoInside: () => void): BatchResult {
    const statements = this.batch;
    if (!statements) throw new Error('no shard attached');
    return this.db.transaction(() => {
      for (const { statement, bound } of statements) {
        if (bound) statement.run({ lo, hi });
        else statement.run();
      }
      alsoInside();
      const urls = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_url').get() as { n: number }).n;
      const pages = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_win').get() as { n: number }).n;
      return { urls, pages };
    }).immediate();
  }
}
