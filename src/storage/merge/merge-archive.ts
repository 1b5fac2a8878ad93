import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { CrawlRecord } from '../crawl-state/crawl-record.js';
import { hardenShardConnection } from '../archive/shard-file.js';
import { copyCapturesSql, COPY_CAPTURES_TEMP_TABLES, pageTextLayout, type PageTextLayout } from '../writer/index.js';
import { UrlRows } from '../writer/url-rows.js';

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

/**
 * A batch's steps, in order: the shard's URLs (one row per URL text, the better state and least depth
 * winning: UrlRows.mergeShard), the map of their ids, where they were found from, then the captures.
 */
const batchSteps = (urls: UrlRows, layout: PageTextLayout): BatchStep[] => [
  { run: (lo, hi) => urls.mergeShard(lo, hi) },
  'DELETE FROM temp.merge_url',
  `INSERT INTO temp.merge_url (shard_id, out_id)
   SELECT su.id, mu.id FROM shard.url su JOIN main.url mu ON mu.url = su.url WHERE su.id BETWEEN :lo AND :hi`,
  { run: () => urls.shardFoundFrom() },
  ...copyCapturesSql(layout),
];

/** A step of a batch: a statement, or a write of the url rows' door (on the shard's ids lo..hi). */
type BatchStep = string | { run: (lo: number, hi: number) => void };

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
  private batch: Array<{ statement: Statement; bound: boolean } | { run: (lo: number, hi: number) => void }> | undefined;
  private reader: Db | undefined;

  constructor(private readonly db: Db) {
    // Checked before the merge, shards are still read as files others made: none of their SQL runs with privileges.
    hardenShardConnection(db);
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS merge_url (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS temp.merge_url_out ON merge_url (out_id);
             CREATE TEMP TABLE IF NOT EXISTS merge_run (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);
             ${COPY_CAPTURES_TEMP_TABLES}`);
  }

  attach(path: string): void {
    // A read-only connection open across the attachment: the attachment is then never the last to
    // close a shard left in WAL mode (a killed crawl), so detaching does not checkpoint into it.
    this.reader = new Database(path, { readonly: true, fileMustExist: true });
    hardenShardConnection(this.reader);
    this.reader.prepare('SELECT count(*) FROM sqlite_schema').get();
    this.db.prepare('ATTACH ? AS shard').run(path);
    // Statements name the attached schema, so they are prepared once it exists.
    this.batch = batchSteps(new UrlRows(this.db), pageTextLayout(this.db) ?? 'plain').map((step) =>
      typeof step === 'string' ? { statement: this.db.prepare(step), bound: step.includes(':lo') } : step,
    );
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
      const find = this.db.prepare<[string, string, number], { id: number }>(
        'SELECT id FROM main.run WHERE started_at = ? AND options = ? AND crawl = ?',
      );
      const insert = this.db.prepare('INSERT INTO main.run (started_at, ended_at, ended_by, options, crawl) VALUES (?, ?, ?, ?, ?)');
      const end = this.db.prepare('UPDATE main.run SET ended_at = ?, ended_by = ? WHERE id = ? AND ended_at IS NULL');
      const map = this.db.prepare('INSERT INTO temp.merge_run (shard_id, out_id) VALUES (?, ?)');
      for (const run of this.db
        .prepare<[], RunRow>('SELECT id, started_at, ended_at, ended_by, options, crawl FROM shard.run ORDER BY id')
        .all()) {
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
    const read = (key: string) =>
      this.db.prepare<[string], { value: string }>('SELECT value FROM shard.meta WHERE key = ?').get(key)?.value;
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
    return this.db
      .transaction(() => {
        for (const step of statements) {
          if ('run' in step) step.run(lo, hi);
          else if (step.bound) step.statement.run({ lo, hi });
          else step.statement.run();
        }
        alsoInside();
        const urls = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_url').get() as { n: number }).n;
        const pages = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_win').get() as { n: number }).n;
        return { urls, pages };
      })
      .immediate();
  }
}
