import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { CrawlRecord } from '../crawl-state/crawl-record.js';
import { hardenShardConnection } from '../archive/shard-file.js';
import { copyCapturesSql, COPY_CAPTURES_TEMP_TABLES, pageTextLayout, type PageTextLayout } from '../writer/index.js';
import { stateRankSql } from '../../pipeline/frontier-rules.js';

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

/** done beats failed beats skipped beats queued (and fetching, which nothing fetches in the output): the frontier's ranking. */
const rank = stateRankSql;

const URL_SQL = [
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
];

const batchSql = (layout: PageTextLayout) => [...URL_SQL, ...copyCapturesSql(layout)];

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
    this.batch = batchSql(pageTextLayout(this.db) ?? 'plain').map((sql) => ({
      statement: this.db.prepare(sql),
      bound: sql.includes(':lo'),
    }));
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
        for (const { statement, bound } of statements) {
          if (bound) statement.run({ lo, hi });
          else statement.run();
        }
        alsoInside();
        const urls = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_url').get() as { n: number }).n;
        const pages = (this.db.prepare('SELECT count(*) AS n FROM temp.merge_win').get() as { n: number }).n;
        return { urls, pages };
      })
      .immediate();
  }
}
