import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { ControlUnavailableError } from './control-errors.js';
import { explainOpenError, checkArchiveFile } from '../archive/open-archive.js';
import { requireSqliteDriver } from '../archive/sqlite-driver.js';
import { urlStateCounts } from '../reader/archive-report.js';
import { requestArgument, type ControlRequest } from '../../pipeline/control-request.js';
import { ControlSettings } from './control-settings.js';
import type { ControlStatus, LiveRow, RequestRow } from './control-status.js';

/** A crawl_live row older than this is a crawl that is gone (it writes its row about once a second). */
export const LIVE_STALE_MS = 5_000;

const REQUEST_COLUMNS = `id, requested_at AS requestedAt, requested_by AS requestedBy, command, argument,
  applied_at AS appliedAt, outcome`;

/**
 * Another process's hold on an archive a crawl may be running on: it appends requests to control_request
 * (and writes nothing else) and reads how the crawl stands. It waits for the crawl's write lock rather than
 * fail on it (a busy timeout), and opens the file as it is: no migration, no change of journal mode.
 */
export class ControlClient {
  private readonly insert: Statement<[string, string, string, string | null], never>;
  private readonly answerOf: Statement<[number], { appliedAt: string | null; outcome: string | null }>;
  private readonly liveRow: Statement<[], LiveRow>;

  private constructor(
    private readonly db: Db,
    readonly path: string,
  ) {
    this.insert = db.prepare('INSERT INTO control_request (requested_at, requested_by, command, argument) VALUES (?, ?, ?, ?)');
    this.answerOf = db.prepare('SELECT applied_at AS appliedAt, outcome FROM control_request WHERE id = ?');
    this.liveRow = db.prepare(`SELECT pid, state, paused_by AS pausedBy, in_flight AS inFlight, concurrency, per_host AS perHost,
      delay_ms AS delayMs, started_at AS startedAt, updated_at AS updatedAt FROM crawl_live WHERE id = 1`);
  }

  static open(path: string, busyTimeoutMs = 10_000): ControlClient {
    requireSqliteDriver();
    if (checkArchiveFile(path)) throw new ControlUnavailableError(path);
    let db: Db | undefined;
    try {
      db = new Database(path, { fileMustExist: true });
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      const tables = db.prepare<[], { n: number }>(
        "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name IN ('control_request', 'crawl_live')",
      );
      if (tables.get()!.n < 2) throw new ControlUnavailableError(path);
      return new ControlClient(db, path);
    } catch (error) {
      db?.close();
      return explainOpenError(path, error);
    }
  }

  /** Appends the request (checked by the caller); its id. */
  request(request: ControlRequest, by: 'control' | 'serve', now = new Date()): number {
    const info = this.insert.run(now.toISOString(), by, request.command, requestArgument(request));
    return Number(info.lastInsertRowid);
  }

  /** When and how the crawl applied request `id`; undefined while it waits. */
  answer(id: number): { appliedAt: string; outcome: string } | undefined {
    const row = this.answerOf.get(id);
    return row?.appliedAt ? { appliedAt: row.appliedAt, outcome: row.outcome ?? '' } : undefined;
  }

  /** The crawl's live row, and whether it says a crawl runs now. */
  live(now = Date.now()): { running: boolean; live?: LiveRow } {
    const live = this.liveRow.get();
    if (!live) return { running: false };
    return { running: live.state !== 'ended' && now - Date.parse(live.updatedAt) <= LIVE_STALE_MS, live };
  }

  status(now = Date.now(), lastRequests = 10): ControlStatus {
    const exclusions = this.db
      .prepare<[], { pattern: string; addedAt: string }>(
        'SELECT pattern, added_at AS addedAt FROM live_exclusion ORDER BY added_at, pattern',
      )
      .all();
    const options = this.db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'options'").get();
    const storedExclude = options ? (((JSON.parse(options.value) as { exclude?: string[] }).exclude ?? []) as string[]) : [];
    const requests = this.db
      .prepare<[number], RequestRow>(`SELECT ${REQUEST_COLUMNS} FROM control_request ORDER BY id DESC LIMIT ?`)
      .all(lastRequests);
    return {
      ...this.live(now),
      settings: new ControlSettings(this.db).read(),
      exclusions,
      storedExclude,
      urls: urlStateCounts(this.db),
      requests,
    };
  }

  close(): void {
    this.db.close();
  }
}
