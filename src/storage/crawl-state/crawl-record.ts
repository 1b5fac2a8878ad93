import type { Database } from 'better-sqlite3';

export type RunEnd = 'finished' | 'interrupted' | 'limit' | 'failed';

/** The crawl's roots and options, and one row per run, kept in the archive itself. */
export class CrawlRecord {
  constructor(private readonly db: Database) {}

  get(key: string): unknown {
    const row = this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key);
    return row ? JSON.parse(row.value) : undefined;
  }

  private set(key: string, value: unknown): void {
    this.db
      .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value));
  }

  roots(): string[] | undefined {
    return this.get('roots') as string[] | undefined;
  }

  options(): Record<string, unknown> | undefined {
    return this.get('options') as Record<string, unknown> | undefined;
  }

  /** Saves what defines the crawl, so `resume` needs nothing but the file. */
  save(roots: string[], options: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
    this.db.transaction(() => {
      this.set('roots', roots);
      this.set('options', options);
      for (const [key, value] of Object.entries(extra)) this.set(key, value);
      // Once compact, always: every later writer (resume, re-crawl, import, merge) compresses what it stores.
      if (options.compact === true) this.set('compact', true);
    })();
  }

  /** Records a run of crawl `crawl` (1: the first crawl; a re-crawl starts the next). */
  startRun(options: object, now: Date, crawl = 1): number {
    const info = this.db
      .prepare('INSERT INTO run (started_at, options, crawl) VALUES (?, ?, ?)')
      .run(now.toISOString(), JSON.stringify(options), crawl);
    return Number(info.lastInsertRowid);
  }

  endRun(runId: number, endedBy: RunEnd, now: Date): void {
    this.db.prepare('UPDATE run SET ended_at = ?, ended_by = ? WHERE id = ?').run(now.toISOString(), endedBy, runId);
  }
}
