import type { Database, Statement } from 'better-sqlite3';
import type { LiveState } from '../../pipeline/ports.js';

/** The running crawl's one crawl_live row: written about once a second, and `ended` when the run ends. */
export class CrawlLiveRow {
  private readonly upsert: Statement<Record<string, unknown>>;
  private readonly end: Statement<[string]>;

  constructor(db: Database) {
    this.upsert = db.prepare(`
      INSERT INTO crawl_live (id, pid, state, paused_by, in_flight, concurrency, per_host, delay_ms, started_at, updated_at)
      VALUES (1, @pid, @state, @pausedBy, @inFlight, @concurrency, @perHost, @delayMs, @startedAt, @updatedAt)
      ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, state = excluded.state, paused_by = excluded.paused_by,
        in_flight = excluded.in_flight, concurrency = excluded.concurrency, per_host = excluded.per_host,
        delay_ms = excluded.delay_ms, started_at = excluded.started_at, updated_at = excluded.updated_at`);
    this.end = db.prepare("UPDATE crawl_live SET state = 'ended', paused_by = NULL, in_flight = 0, updated_at = ? WHERE id = 1");
  }

  write(live: LiveState, now: Date): void {
    this.upsert.run({ ...live, updatedAt: now.toISOString() });
  }

  ended(now: Date): void {
    this.end.run(now.toISOString());
  }
}
