import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { base32 } from '../../src/storage/writer/payload-digest.js';

// Later captures, made the way a re-crawl leaves them in the archive (schema 7):
// a run row with the next crawl number, the new body stored once by hash, and
// the URL's response row updated in place with a new fetched_at, so the
// response_keeps_captures trigger moves the row it replaces into `capture`.
// A 304 keeps the confirmed body (and status, headers) with revalidated = 1
// and the 304's own header block. Written in SQL here so that tests of what
// reads captures (diff, export, serve) do not need the re-crawl command.

export interface LaterCapture {
  /** The URL as the archive keys it (pages.url). */
  url: string;
  fetchedAt: string;
  /** A new body (and status, content type); leave out for a 304 (`notModified`) or for the same answer again. */
  body?: string | Buffer;
  status?: number;
  contentType?: string;
  location?: string | null;
  /** Answered 304 Not Modified: the content columns stay the confirmed capture's. */
  notModified?: boolean;
}

const CRLF = '\r\n';

/** Stores a body once by hash (as the crawl does); returns its id. */
function bodyId(db: Database.Database, data: Buffer): number {
  const hash = createHash('sha256').update(data).digest();
  const found = db.prepare<[Buffer], { id: number }>('SELECT id FROM body WHERE hash = ?').get(hash);
  if (found) return found.id;
  const sha1 = `sha1:${base32(createHash('sha1').update(data).digest())}`;
  return Number(
    db.prepare('INSERT INTO body (hash, size, data, sha1) VALUES (?, ?, ?, ?)').run(hash, data.length, data, sha1).lastInsertRowid,
  );
}

/** Adds a crawl (its number: the archive's last plus one) made of the captures given, each replacing its URL's latest (or its first, for a URL new to the archive). */
export function addCrawl(path: string, captures: LaterCapture[]): number {
  const db = new Database(path);
  try {
    return db.transaction(() => {
      const crawl = (db.prepare<[], { n: number }>('SELECT max(crawl) AS n FROM run').get()!.n ?? 0) + 1;
      const started = captures[0]?.fetchedAt ?? new Date().toISOString();
      const runId = Number(
        db
          .prepare("INSERT INTO run (started_at, ended_at, ended_by, options, crawl) VALUES (?, ?, 'done', '{}', ?)")
          .run(started, started, crawl).lastInsertRowid,
      );
      for (const capture of captures) {
        const row = db
          .prepare<[string], { id: number; status: number; content_type: string | null; body_id: number; location: string | null }>(
            'SELECT u.id, r.status, r.content_type, r.body_id, r.location FROM url u JOIN response r ON r.url_id = u.id WHERE u.url = ?',
          )
          .get(capture.url);
        if (!row) {
          // A URL this crawl found first.
          const status = capture.status ?? 200;
          const urlId = Number(
            db.prepare("INSERT INTO url (url, state, depth, redirect_hops, crawl) VALUES (?, 'done', 1, 0, ?)").run(capture.url, crawl)
              .lastInsertRowid,
          );
          const contentType = capture.contentType ?? 'text/html; charset=utf-8';
          db.prepare(
            `INSERT INTO response (url_id, run_id, status, content_type, headers, body_id, fetched_at, elapsed_ms, links_found, links_new, http_version)
             VALUES (?, ?, ?, ?, ?, ?, ?, 1, 0, 0, 'HTTP/1.1')`,
          ).run(
            urlId,
            runId,
            status,
            contentType,
            JSON.stringify({ 'content-type': contentType }),
            bodyId(db, Buffer.from(capture.body ?? '')),
            capture.fetchedAt,
          );
          continue;
        }
        db.prepare('UPDATE url SET crawl = ? WHERE id = ?').run(crawl, row.id);
        if (capture.notModified) {
          const raw = Buffer.from(`Date: ${new Date(capture.fetchedAt).toUTCString()}${CRLF}ETag: "v1"${CRLF}`, 'latin1');
          db.prepare(
            "UPDATE response SET run_id = ?, fetched_at = ?, revalidated = 1, http_version = 'HTTP/1.1', reason = 'Not Modified', raw_headers = ? WHERE url_id = ?",
          ).run(runId, capture.fetchedAt, raw, row.id);
          continue;
        }
        // No body given: fetched again, the same answer.
        const same = capture.body === undefined;
        const status = capture.status ?? (same ? row.status : 200);
        const contentType = capture.contentType ?? row.content_type;
        const body = same ? row.body_id : bodyId(db, Buffer.from(capture.body!));
        const location = capture.location === undefined ? (same ? row.location : null) : capture.location;
        const headers: Record<string, string> = {
          ...(contentType ? { 'content-type': contentType } : {}),
          ...(location ? { location } : {}),
        };
        const raw = Buffer.from(
          Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}${CRLF}`)
            .join(''),
          'latin1',
        );
        db.prepare(
          `UPDATE response SET run_id = ?, fetched_at = ?, status = ?, content_type = ?, location = ?, headers = ?, body_id = ?,
             revalidated = 0, http_version = 'HTTP/1.1', reason = NULL, raw_headers = ? WHERE url_id = ?`,
        ).run(runId, capture.fetchedAt, status, contentType, location, JSON.stringify(headers), body, raw, row.id);
      }
      return crawl;
    })();
  } finally {
    db.close();
  }
}
