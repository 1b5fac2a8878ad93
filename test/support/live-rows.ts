import Database from 'better-sqlite3';
import { get } from './serve.js';

// The rows a running crawl writes for serve's live page, written by a test instead (crawl_live,
// live_exclusion, url), what a control leaves (control_request), and the live page's token.

function write<T>(path: string, step: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return step(db);
  } finally {
    db.close();
  }
}

export interface CrawlLiveRow {
  pid?: number;
  state?: 'running' | 'paused' | 'stopping' | 'ended';
  paused_by?: string | null;
  in_flight?: number;
  concurrency?: number;
  per_host?: number;
  delay_ms?: number | null;
  started_at?: string;
  /** Now, unless given (an old time: a crawl gone). */
  updated_at?: string;
}

/** The crawl's live row as a running crawl writes it about once a second. */
export function writeCrawlLive(path: string, row: CrawlLiveRow = {}): void {
  const now = new Date().toISOString();
  const full = {
    pid: process.pid,
    state: 'running',
    paused_by: null,
    in_flight: 0,
    concurrency: 10,
    per_host: 2,
    delay_ms: null,
    started_at: now,
    updated_at: now,
    ...row,
  };
  write(path, (db) =>
    db
      .prepare(
        `INSERT OR REPLACE INTO crawl_live (id, pid, state, paused_by, in_flight, concurrency, per_host, delay_ms, started_at, updated_at)
         VALUES (1, @pid, @state, @paused_by, @in_flight, @concurrency, @per_host, @delay_ms, @started_at, @updated_at)`,
      )
      .run(full),
  );
}

/** No live row: an archive no crawl of this crawlite has run on. */
export function removeCrawlLive(path: string): void {
  write(path, (db) => db.prepare('DELETE FROM crawl_live').run());
}

export function addLiveExclusion(path: string, pattern: string): void {
  write(path, (db) => db.prepare('INSERT INTO live_exclusion (pattern, added_at) VALUES (?, ?)').run(pattern, new Date().toISOString()));
}

/** URLs in a state (queued by default), with an error code for a failed or skipped one. */
export function addUrls(path: string, urls: string[], state = 'queued', errorCode: string | null = null): void {
  write(path, (db) => {
    const insert = db.prepare('INSERT INTO url (url, state, depth, redirect_hops, origin, error_code, error) VALUES (?, ?, 1, 0, ?, ?, ?)');
    db.transaction(() => {
      for (const url of urls) insert.run(url, state, new URL(url).origin, errorCode, errorCode && `test: ${errorCode}`);
    })();
  });
}

export interface ControlRequestRow {
  id: number;
  requested_by: string;
  command: string;
  argument: string | null;
  applied_at: string | null;
  outcome: string | null;
}

export function controlRequests(path: string): ControlRequestRow[] {
  return write(path, (db) =>
    db.prepare('SELECT id, requested_by, command, argument, applied_at, outcome FROM control_request ORDER BY id').all(),
  ) as ControlRequestRow[];
}

/** What the crawl's writer does with a request it applied. */
export function applyRequest(path: string, id: number, outcome: string): void {
  write(path, (db) =>
    db.prepare('UPDATE control_request SET applied_at = ?, outcome = ? WHERE id = ?').run(new Date().toISOString(), outcome, id),
  );
}

/** The live page's token, as the page carries it (read as the UI's own visitor would). */
export async function liveToken(ui: string): Promise<string> {
  const page = await get(ui, '/live');
  const token = /data-token="([^"]+)"/.exec(page.body)?.[1];
  if (page.status !== 200 || !token) throw new Error(`no token on the live page (${page.status}): ${page.body.slice(0, 300)}`);
  return token;
}
