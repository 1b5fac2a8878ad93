import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** This test process as the holder of an archive's lock. */
export const testOwner = { pid: process.pid, host: hostname() };

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'crawlite-test-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Reads an archive through the public views, the way a user's SQLite client would. */
export function readArchive<T = Record<string, unknown>>(path: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** SQLite's own check of an archive file: 'ok' when intact, else every problem it found. */
export function integrity(path: string): string {
  return readArchive<{ integrity_check: string }>(path, 'PRAGMA integrity_check')
    .map((row) => row.integrity_check)
    .join('; ');
}

/** A file's SHA-256 (hex): equal before and after means not one byte changed. */
export const fileSha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * The `pages` view as schema version 4 had it (before migration 5 added the wire columns), for an archive
 * made by an older crawlite: what readers and export must still handle.
 */
export const PAGES_VIEW_OF_SCHEMA_4 = `DROP VIEW pages;
  CREATE VIEW pages AS
  SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
         r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
         r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url, r.links_dropped
  FROM response r JOIN url u ON u.id = r.url_id JOIN body b ON b.id = r.body_id;
  PRAGMA user_version = 4;`;

/** A statement of a shipped migration, as it wrote it (the views and trigger a schema had). */
function statementOf(migration: string, start: RegExp, end: RegExp): string {
  const text = readFileSync(new URL(`../../migrations/${migration}`, import.meta.url), 'utf8');
  const from = text.search(start);
  const rest = text.slice(from);
  const match = end.exec(rest);
  if (from < 0 || !match) throw new Error(`no ${start} in ${migration}`);
  return rest.slice(0, match.index + match[0].length);
}
const VIEWS_OF_7 = ['pages', 'captures', 'changes']
  .map((view) => statementOf('0007_captures.sql', new RegExp(`CREATE VIEW ${view} AS`), /;\n/))
  .join('\n');
const TRIGGER_OF = (migration: string) => statementOf(migration, /CREATE TRIGGER response_keeps_captures/, /\nEND;/);

/** Takes a current archive back to schema 20: no link share of pages, as a crawlite before it left it. */
export const UNDO_SCHEMA_21 = `DROP TABLE page_link_share; PRAGMA user_version = 20;`;

/** ... schema 19: no control of a running crawl. */
export const UNDO_SCHEMA_20 = `${UNDO_SCHEMA_21}
  DROP TABLE control_request; DROP TABLE control_setting; DROP TABLE live_exclusion;
  DROP TABLE crawl_live; PRAGMA user_version = 19;`;

/** ... schema 18: no CJK words index. */
export const UNDO_SCHEMA_19 = `${UNDO_SCHEMA_20}
  DROP TABLE page_text_cjk_words;
  PRAGMA user_version = 18;`;

/** ... schema 17: no Markdown. */
export const UNDO_SCHEMA_18 = `${UNDO_SCHEMA_19}
  DROP VIEW page_markdown; DROP TABLE markdown; PRAGMA user_version = 17;`;

/** ... schema 16: links spelling every target URL out. */
export const UNDO_SCHEMA_17 = `${UNDO_SCHEMA_18}
  DROP VIEW links; ALTER TABLE link RENAME TO link_0017;
  CREATE TABLE link (
    from_id INTEGER NOT NULL REFERENCES url (id),
    to_url  TEXT NOT NULL,
    kind    TEXT NOT NULL,
    nofollow INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (from_id, to_url)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO link (from_id, to_url, kind, nofollow)
  SELECT l.from_id, CASE l.to_id WHEN 0 THEN l.to_url ELSE t.url END, k.kind, l.nofollow
  FROM link_0017 l JOIN link_kind k ON k.code = l.kind LEFT JOIN url t ON t.id = l.to_id;
  DROP TABLE link_0017; DROP TABLE link_kind;
  ${statementOf('0002_archivist.sql', /CREATE VIEW links AS/, /;\n/)}
  PRAGMA user_version = 16;`;

/** ... schema 15: no capture notes. */
export const UNDO_SCHEMA_16 = `${UNDO_SCHEMA_17}
  DROP VIEW capture_notes; DROP TABLE capture_note;
  PRAGMA user_version = 15;`;

/** ... schema 14: no render notes. */
export const UNDO_SCHEMA_15 = `${UNDO_SCHEMA_16}
  DROP VIEW render_notes; DROP TABLE render_note;
  PRAGMA user_version = 14;`;

/** ... schema 13: no replay QA scores. */
export const UNDO_SCHEMA_14 = `${UNDO_SCHEMA_15}
  DROP VIEW qa; DROP TABLE qa_check;
  PRAGMA user_version = 13;`;

/** ... schema 12: changes counted over captures of any method. */
export const UNDO_SCHEMA_13 = `${UNDO_SCHEMA_14}
  DROP VIEW changes;
  ${VIEWS_OF_7.slice(VIEWS_OF_7.indexOf('CREATE VIEW changes AS'))}
  PRAGMA user_version = 12;`;

/** ... schema 11: no screenshots. */
export const UNDO_SCHEMA_12 = `${UNDO_SCHEMA_13}
  DROP VIEW screenshots; DROP TABLE screenshot;
  PRAGMA user_version = 11;`;

/** ... schema 10: no truncated or request_body columns. */
export const UNDO_SCHEMA_11 = `${UNDO_SCHEMA_12}
  DROP VIEW changes; DROP VIEW captures; DROP VIEW pages; DROP TRIGGER response_keeps_captures;
  ALTER TABLE response DROP COLUMN truncated; ALTER TABLE response DROP COLUMN request_body;
  ALTER TABLE capture DROP COLUMN truncated; ALTER TABLE capture DROP COLUMN request_body;
  ${VIEWS_OF_7}
  ${TRIGGER_OF('0010_capture_identity.sql')}
  PRAGMA user_version = 10;`;

/** ... schema 9: captures told apart by time only. */
export const UNDO_SCHEMA_10 = `${UNDO_SCHEMA_11}
  DROP TRIGGER response_keeps_captures;
  ${TRIGGER_OF('0007_captures.sql')}
  PRAGMA user_version = 9;`;

/** ... schema 8: page text without its extraction version. */
export const UNDO_SCHEMA_9 = `${UNDO_SCHEMA_10}
  ALTER TABLE page_text DROP COLUMN text_version;
  PRAGMA user_version = 8;`;

/** Takes a current archive back to schema 7: its trigram index as migration 6 made it, which only SQLite 3.45+ opens. */
export const UNDO_SCHEMA_8 = `${UNDO_SCHEMA_9}
  DROP TABLE page_text_trigram;
  CREATE VIRTUAL TABLE page_text_trigram USING fts5(
    title, body,
    content="page_text_cjk", content_rowid="url_id",
    tokenize="trigram remove_diacritics 1"
  );
  INSERT INTO page_text_trigram(page_text_trigram, rank) VALUES ('rank', 'bm25(10.0, 1.0)');
  INSERT INTO page_text_trigram(page_text_trigram) VALUES ('rebuild');
  PRAGMA user_version = 7;`;

/** Takes a current archive back to schema 6 (before re-crawls kept captures): what an older crawlite left. */
export const UNDO_SCHEMA_7 = `${UNDO_SCHEMA_8}
  DROP VIEW changes; DROP VIEW captures; DROP TRIGGER response_keeps_captures; DROP TABLE capture;
  DROP VIEW pages;
  CREATE VIEW pages AS
  SELECT u.url, r.status, r.content_type, r.location, b.data AS body, r.fetched_at, u.depth,
         r.headers, b.size, r.charset, lower(hex(b.hash)) AS sha256, r.elapsed_ms,
         r.title, r.canonical, r.robots, u.kind, coalesce(u.fetch_url, u.url) AS fetch_url, r.links_dropped,
         r.http_version, r.reason, r.raw_headers, r.request_method, r.request_target, r.request_headers,
         r.remote_ip, r.started_at, b.sha1
  FROM response r JOIN url u ON u.id = r.url_id JOIN body b ON b.id = r.body_id;
  ALTER TABLE response DROP COLUMN revalidated; ALTER TABLE url DROP COLUMN crawl; ALTER TABLE run DROP COLUMN crawl;
  PRAGMA user_version = 6;`;

/** What two archives must share to hold the same crawl: every page (URL, status, body digest), in URL order. */
export const pageRows = (db: string) =>
  readArchive<{ url: string; status: number; sha256: string }>(db, 'SELECT url, status, sha256 FROM pages ORDER BY url');

/** ... and every link, in order. */
export const linkRows = (db: string) =>
  readArchive<{ from_url: string; to_url: string; kind: string }>(
    db,
    'SELECT from_url, to_url, kind FROM links ORDER BY from_url, to_url, kind',
  );

/** A stored request: its URL, and when the crawler sent its head (its own clock, ms since the epoch). */
export interface SentRequest {
  url: string;
  at: number;
}

/**
 * When the crawler sent each request kept in these archives (`started_at`, the last try of each URL), in
 * order. Taken where the request was made, and no later than what it paces from, so a busy test process
 * cannot shorten a gap between two of them, as it can between the times a test server notes arrivals.
 */
export function sentRequests(...dbs: string[]): SentRequest[] {
  return dbs
    .flatMap((db) => readArchive<{ url: string; started_at: string }>(db, 'SELECT url, started_at FROM pages WHERE started_at IS NOT NULL'))
    .map((row) => ({ url: row.url, at: Date.parse(row.started_at) }))
    .sort((a, b) => a.at - b.at);
}

/** The gaps between consecutive times, in ms. */
export const gapsBetween = (times: number[]): number[] => times.slice(1).map((time, i) => time - times[i]!);
