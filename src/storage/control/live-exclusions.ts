import type { Database, Statement } from 'better-sqlite3';
import { liveExclusionReason } from '../../pipeline/scope.js';
import { registerRegexpFunctions } from './regexp-functions.js';

/** Queued rows looked at per statement: a scan of a long queue goes in steps of this many ids. */
const SCAN_BATCH = 5_000;

/** The stored --exclude of a crawl: its skip reason names the compiled pattern, as the crawl's scope check does. */
const storedReason = (pattern: string) => ({ code: 'excluded', message: `matches --exclude ${new RegExp(pattern).source}` });

/** What taking an exclusion away did. */
export interface Included {
  /** Which exclusion it was: a live one, an --exclude stored with the crawl's options, or none. */
  was: 'live' | 'stored' | undefined;
  requeued: number;
  /** The origins of the URLs queued again. */
  origins: string[];
}

/**
 * Exclusions and the queue they prune: `control exclude` adds one and skips every queued URL matching it;
 * `control include` takes one away (live, or an --exclude of the same text) and queues again what it kept,
 * unless another exclusion still matches; an --exclude given when a crawl goes on prunes the queue too.
 * Every change runs in the caller's transaction; the queue is scanned in bounded steps.
 */
export class LiveExclusions {
  private readonly list: Statement<[], { pattern: string }>;
  private readonly insert: Statement<[string, string]>;
  private readonly forget: Statement<[string]>;
  private readonly lastOfBatch: Statement<[number, number], { last: number | null }>;
  private readonly prune: Statement<{ after: number; last: number; patterns: string; code: string; message: string }>;
  private readonly requeue: Statement<
    { code: string; message: string; others: string; include: string; hasInclude: number },
    { origin: string }
  >;
  private readonly options: Statement<[], { value: string }>;
  private readonly saveOptions: Statement<[string]>;

  constructor(db: Database) {
    registerRegexpFunctions(db);
    this.list = db.prepare('SELECT pattern FROM live_exclusion ORDER BY added_at, pattern');
    this.insert = db.prepare('INSERT INTO live_exclusion (pattern, added_at) VALUES (?, ?) ON CONFLICT (pattern) DO NOTHING');
    this.forget = db.prepare('DELETE FROM live_exclusion WHERE pattern = ?');
    this.lastOfBatch = db.prepare(
      "SELECT max(id) AS last FROM (SELECT id FROM url INDEXED BY url_state WHERE state = 'queued' AND id > ? ORDER BY id LIMIT ?)",
    );
    this.prune = db.prepare(`
      UPDATE url SET state = 'skipped', error_code = @code, error = @message
      WHERE state = 'queued' AND id > @after AND id <= @last AND kind <> 'robots'
        AND crawlite_matches(@patterns, coalesce(fetch_url, url))`);
    // What the crawl's scope check would let in again: no other exclusion matches, and --include (pages only) does.
    this.requeue = db.prepare(`
      UPDATE url SET state = 'queued', error_code = NULL, error = NULL
      WHERE state = 'skipped' AND error_code = @code AND error = @message
        AND NOT crawlite_matches(@others, coalesce(fetch_url, url))
        AND (@hasInclude = 0 OR kind = 'requisite' OR crawlite_matches(@include, coalesce(fetch_url, url)))
      RETURNING origin`);
    this.options = db.prepare("SELECT value FROM meta WHERE key = 'options'");
    this.saveOptions = db.prepare("UPDATE meta SET value = ? WHERE key = 'options'");
  }

  patterns(): string[] {
    return this.list.all().map((row) => row.pattern);
  }

  /** Adds a live exclusion and skips the queued URLs matching it; how many. */
  add(pattern: string, now: Date): number {
    this.insert.run(pattern, now.toISOString());
    return this.skipQueued(pattern, liveExclusionReason(pattern));
  }

  /** Skips the queued URLs matching the crawl's --exclude patterns, each with its own reason; how many. */
  pruneStored(patterns: readonly string[]): number {
    return patterns.reduce((skipped, pattern) => skipped + this.skipQueued(pattern, storedReason(pattern)), 0);
  }

  private skipQueued(pattern: string, reason: { code: string; message: string }): number {
    const patterns = JSON.stringify([pattern]);
    let skipped = 0;
    for (let after = 0; ;) {
      const last = this.lastOfBatch.get(after, SCAN_BATCH)?.last;
      if (last === null || last === undefined) return skipped;
      skipped += this.prune.run({ after, last, patterns, code: reason.code, message: reason.message }).changes;
      after = last;
    }
  }

  /** Takes away the exclusion of this text (a live one first, else a stored --exclude) and queues again what it kept. */
  remove(pattern: string): Included {
    const options = this.storedOptions();
    const exclude = options?.exclude ?? [];
    let was: Included['was'];
    let reason: { code: string; message: string };
    if (this.forget.run(pattern).changes > 0) {
      was = 'live';
      reason = liveExclusionReason(pattern);
    } else if (options && exclude.includes(pattern)) {
      was = 'stored';
      reason = storedReason(pattern);
      this.saveOptions.run(JSON.stringify({ ...options, exclude: exclude.filter((stored) => stored !== pattern) }));
    } else {
      return { was: undefined, requeued: 0, origins: [] };
    }
    const others = [...this.patterns(), ...exclude.filter((stored) => stored !== pattern)];
    const include = options?.include ?? [];
    const rows = this.requeue.all({
      ...reason,
      others: JSON.stringify(others),
      include: JSON.stringify(include),
      hasInclude: include.length > 0 ? 1 : 0,
    });
    return { was, requeued: rows.length, origins: [...new Set(rows.map((row) => row.origin))] };
  }

  private storedOptions(): { exclude?: string[]; include?: string[] } | undefined {
    const row = this.options.get();
    return row ? (JSON.parse(row.value) as { exclude?: string[]; include?: string[] }) : undefined;
  }
}
