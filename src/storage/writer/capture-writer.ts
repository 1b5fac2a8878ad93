import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { CaptureColumns, DiscoveredUrl, Recorded, Screenshot, StoredResponse, WireExchange } from '../../pipeline/ports.js';
import { compressBody } from '../../pipeline/compress-body.js';
import { LINK_KIND_CODE } from '../archive/link-kind-codes.js';
import { readMetaValue } from '../archive/meta-value.js';
import { PageTextWriter } from './page-text-writer.js';
import { payloadDigest } from './payload-digest.js';
import { resolveLinkTargetsSql } from './resolve-link-targets.js';

/** One capture as the archive keeps it: a response, the exchange it came in, and what its page said. */
export interface CaptureRow extends Omit<CaptureColumns, 'headers'> {
  /** Lower-case names, as JSON. */
  headers: string;
  /** What an imported record said of the capture that its columns cannot (the view capture_notes). */
  notes?: readonly string[];
}

/** Where a capture went: the URL's page (its latest GET), or among its earlier captures. */
export type CaptureFate = 'page' | 'earlier';

/**
 * Two captures are the same when they agree on URL, time, status, payload, method and both header blocks (the
 * response's as received, the request's as sent): two records of one second that differ in a header are two.
 */
const SAME_CAPTURE = `url_id = ? AND fetched_at = ? AND status = ? AND body_id = ? AND request_method IS ?
  AND raw_headers IS ? AND request_headers IS ?`;
const sameCapture = (urlId: number, bodyId: number, row: CaptureRow): unknown[] => [
  urlId,
  row.fetchedAt,
  row.status,
  bodyId,
  row.requestMethod,
  row.rawHeaders,
  row.requestHeaders,
];

/** Links written per statement: one call into SQLite for many rows, since a page has dozens. */
const LINKS_PER_INSERT = 32;

/**
 * The column of each field of a capture row (besides url_id, run_id, body_id and the link counts), in the
 * order the statements bind them: a field of CaptureColumns without its column here is a type error.
 */
const COLUMN_OF: Readonly<Record<keyof CaptureColumns, string>> = {
  status: 'status',
  contentType: 'content_type',
  charset: 'charset',
  location: 'location',
  headers: 'headers',
  fetchedAt: 'fetched_at',
  elapsedMs: 'elapsed_ms',
  title: 'title',
  canonical: 'canonical',
  robots: 'robots',
  linksDropped: 'links_dropped',
  httpVersion: 'http_version',
  reason: 'reason',
  rawHeaders: 'raw_headers',
  requestMethod: 'request_method',
  requestTarget: 'request_target',
  requestHeaders: 'request_headers',
  remoteIp: 'remote_ip',
  startedAt: 'started_at',
  truncated: 'truncated',
  requestBody: 'request_body',
};
const FIELDS = Object.keys(COLUMN_OF) as ReadonlyArray<keyof CaptureColumns>;

/** The columns of a capture row that CaptureRow fills (besides url_id, run_id, body_id and the link counts). */
export const CAPTURE_ROW_COLUMNS: readonly string[] = FIELDS.map((field) => COLUMN_OF[field]);
const COLUMNS = CAPTURE_ROW_COLUMNS;
/** url_id, run_id, body_id, links_found, links_new, then COLUMNS. */
const PLACEHOLDERS = Array.from({ length: 5 + COLUMNS.length }, () => '?').join(', ');

/** A request whose answer may be a URL's page: a GET, or one whose method was not recorded. */
export const isPageRequest = (method: string | null): boolean => method === null || method.toUpperCase() === 'GET';

/**
 * The one door every capture goes through, whoever made it (a crawl, a worker's shard, an import):
 * bodies by hash, the response row of a URL's latest capture, its earlier captures, its links and its
 * text. Which capture is a URL's page is decided here, once:
 * - a capture of a request other than GET (a POST's answer) is only ever an earlier capture;
 * - a capture older than the page (by fetched_at) is an earlier capture; the page stays;
 * - otherwise it becomes the page, and the trigger on `response` keeps the one it replaces, unless it
 *   is the same capture (same time, status and payload: a WARC imported twice); one of the same time,
 *   status and payload whose header blocks differ (two records of one second) is kept here, the trigger
 *   not seeing it;
 * - an earlier capture already kept (same time, status, payload, header blocks, method and request body)
 *   is not kept twice. `stored` tells whether a capture is kept already, so an import can count merges.
 * Every statement runs in the caller's transaction.
 */
export class CaptureWriter {
  private readonly bodyByHash: Statement<[Buffer], { id: number; sha1: string | null }>;
  private readonly insertBody: Statement<[Buffer, number, Uint8Array, string]>;
  private readonly fillSha1: Statement<[string, number]>;
  private readonly upsertPage: Statement<unknown[]>;
  private readonly insertEarlier: Statement<unknown[]>;
  private readonly revalidate: Statement<unknown[]>;
  private readonly keepPageVariant: Statement<unknown[]>;
  private readonly storedStmt: Statement<unknown[]>;
  private readonly deleteLinks: Statement<[number]>;
  private readonly insertScreenshot: Statement<[number, string, string, Uint8Array]>;
  private readonly insertRenderNote: Statement<[number, string, string]>;
  private readonly insertCaptureNote: Statement<[number, string, string]>;
  /** Multi-row link inserts, by row count, prepared once each when first needed. */
  private readonly insertLinks = new Map<number, Statement<unknown[]>>();
  /** A page's text links whose targets have url rows now, given their ids: prepared when first needed. */
  private resolvePage: Statement<[number]>[] | undefined;
  private readonly text: PageTextWriter;
  /** The archive stores bodies compressed (meta 'compact', set by --compact or `crawlite compact`). */
  readonly compact: boolean;

  constructor(private readonly db: Database) {
    this.bodyByHash = db.prepare('SELECT id, sha1 FROM body WHERE hash = ?');
    this.insertBody = db.prepare('INSERT INTO body (hash, size, data, sha1) VALUES (?, ?, ?, ?)');
    // A body stored before the archive kept SHA-1s gets one when it is stored again.
    this.fillSha1 = db.prepare('UPDATE body SET sha1 = ? WHERE id = ?');
    // The page only moves forward in time: an older capture leaves it as it is (no change), and is kept as an earlier one.
    this.upsertPage = db.prepare(`
      INSERT INTO response (url_id, run_id, body_id, links_found, links_new, ${COLUMNS.join(', ')}) VALUES (${PLACEHOLDERS})
      ON CONFLICT (url_id) DO UPDATE SET run_id = excluded.run_id, body_id = excluded.body_id,
        links_found = excluded.links_found, links_new = excluded.links_new,
        ${COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ')}, revalidated = 0
      WHERE excluded.fetched_at >= response.fetched_at`);
    this.insertEarlier = db.prepare(`
      INSERT INTO capture (url_id, run_id, body_id, links_found, links_new, ${COLUMNS.join(', ')})
      SELECT ${PLACEHOLDERS}
      WHERE NOT EXISTS (SELECT 1 FROM capture WHERE ${SAME_CAPTURE} AND request_body IS ?)
        AND NOT EXISTS (SELECT 1 FROM response WHERE ${SAME_CAPTURE})`);
    this.storedStmt = db.prepare(`SELECT EXISTS (SELECT 1 FROM capture WHERE ${SAME_CAPTURE} AND request_body IS ?)
      OR EXISTS (SELECT 1 FROM response WHERE ${SAME_CAPTURE}) AS stored`);
    // The page a capture of the same time, status and payload replaces, when their header blocks differ: the trigger
    // on response keeps only a page whose time, status or payload changes.
    this.keepPageVariant = db.prepare(`
      INSERT INTO capture (url_id, run_id, body_id, links_found, links_new, ${COLUMNS.join(', ')}, revalidated)
      SELECT url_id, run_id, body_id, links_found, links_new, ${COLUMNS.join(', ')}, revalidated FROM response
      WHERE url_id = ? AND fetched_at = ? AND status = ? AND body_id = ? AND request_method IS ?
        AND (raw_headers IS NOT ? OR request_headers IS NOT ?)`);
    // A 304 confirms the stored capture: it keeps its status, headers, body and what its page said; the
    // exchange's time and wire columns are the 304's (the trigger moves the confirmed capture into capture).
    this.revalidate = db.prepare(`
      UPDATE response SET run_id = ?, fetched_at = ?, elapsed_ms = ?, http_version = ?, reason = ?, raw_headers = ?,
        request_method = ?, request_target = ?, request_headers = ?, remote_ip = ?, started_at = ?, revalidated = 1
      WHERE url_id = ?`);
    this.deleteLinks = db.prepare('DELETE FROM link WHERE from_id = ?');
    this.insertScreenshot = db.prepare(`INSERT INTO screenshot (url_id, fetched_at, type, data) VALUES (?, ?, ?, ?)
      ON CONFLICT (url_id, fetched_at) DO UPDATE SET type = excluded.type, data = excluded.data`);
    this.insertRenderNote = db.prepare('INSERT INTO render_note (url_id, fetched_at, note) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    this.insertCaptureNote = db.prepare('INSERT INTO capture_note (url_id, fetched_at, note) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    this.text = new PageTextWriter(db);
    this.compact = readMetaValue(db, 'compact') === true;
  }

  /**
   * The id of the body with these bytes, stored if new; the hashes are computed only when not given and needed.
   * A compact archive stores the body compressed (`known.stored` when a parse thread made it), a plain one raw.
   */
  body(bytes: Uint8Array, known: { sha256?: Buffer | undefined; sha1?: Buffer | undefined; stored?: Uint8Array | undefined } = {}): number {
    const hash = known.sha256 ?? createHash('sha256').update(bytes).digest();
    const stored = this.bodyByHash.get(hash);
    if (!stored) {
      const data = this.compact ? (known.stored ?? compressBody(bytes)) : bytes;
      return Number(this.insertBody.run(hash, bytes.byteLength, data, payloadDigest(bytes, known.sha1)).lastInsertRowid);
    }
    if (stored.sha1 === null) this.fillSha1.run(payloadDigest(bytes, known.sha1), stored.id);
    return stored.id;
  }

  /** Records a capture of a URL (its body stored first, see `body`). */
  capture(urlId: number, runId: number, bodyId: number, row: CaptureRow, links: { found: number; new: number }): CaptureFate {
    const values: unknown[] = [urlId, runId, bodyId, links.found, links.new];
    for (const field of FIELDS) values.push(field === 'elapsedMs' ? Math.round(row.elapsedMs) : row[field]);
    for (const note of row.notes ?? []) this.insertCaptureNote.run(urlId, row.fetchedAt, note);
    if (isPageRequest(row.requestMethod)) {
      this.keepPageVariant.run(urlId, row.fetchedAt, row.status, bodyId, row.requestMethod, row.rawHeaders, row.requestHeaders);
      if (this.upsertPage.run(values).changes > 0) return 'page';
    }
    // The identity of the capture, for the two checks that it is not kept already.
    const identity = sameCapture(urlId, bodyId, row);
    this.insertEarlier.run([...values, ...identity, row.requestBody, ...identity]);
    return 'earlier';
  }

  /** Whether the archive keeps this capture already (see SAME_CAPTURE): a WARC imported again. */
  stored(urlId: number, bodyId: number, row: CaptureRow): boolean {
    const identity = sameCapture(urlId, bodyId, row);
    return (this.storedStmt.get([...identity, row.requestBody, ...identity]) as { stored: number }).stored === 1;
  }

  /** Records a 304 as a new capture of the stored page; false when there is none to confirm. */
  revalidated(urlId: number, runId: number, response: StoredResponse): boolean {
    const wire = wireColumns(response.wire);
    return (
      this.revalidate.run(
        runId,
        response.fetchedAt,
        Math.round(response.elapsedMs),
        wire.httpVersion,
        wire.reason,
        wire.rawHeaders,
        wire.requestMethod,
        wire.requestTarget,
        wire.requestHeaders,
        wire.remoteIp,
        wire.startedAt,
        urlId,
      ).changes > 0
    );
  }

  /** A page's links are those of its latest capture: the ones stored before go. */
  replaceLinks(from: number, discovered: readonly DiscoveredUrl[]): void {
    this.deleteLinks.run(from);
    this.insertLinkRows(from, discovered);
  }

  /** Links of a page, added to those it has (each once). */
  addLinks(from: number, discovered: readonly DiscoveredUrl[]): void {
    this.insertLinkRows(from, discovered);
    // A target kept as text before may have a url row now: one link to it, not a text one and an id one.
    this.resolvePage ??= resolveLinkTargetsSql({ where: 'l.from_id = ?' }).map((sql) => this.db.prepare<[number]>(sql));
    for (const statement of this.resolvePage) statement.run(from);
  }

  /** The links' rows, each naming its target by url id where the target has a row (resolved in the statement). */
  private insertLinkRows(from: number, discovered: readonly DiscoveredUrl[]): void {
    for (let start = 0; start < discovered.length; start += LINKS_PER_INSERT) {
      const end = Math.min(start + LINKS_PER_INSERT, discovered.length);
      const values: unknown[] = new Array(4 * (end - start));
      for (let i = start, at = 0; i < end; i++, at += 4) {
        const found = discovered[i]!;
        values[at] = from;
        values[at + 1] = found.key;
        values[at + 2] = LINK_KIND_CODE[found.kind];
        values[at + 3] = found.nofollow ? 1 : 0;
      }
      this.linkInsert(end - start).run(values);
    }
  }

  /** The page's text for search, or none (the response had none: an error, not HTML, --no-text). */
  pageText(urlId: number, url: string, response: Pick<StoredResponse, 'title' | 'text'>): void {
    this.text.write(urlId, url, response);
  }

  /** What the page captured at `fetchedAt` looked like, rendered (an imported one may be of any image type). */
  screenshot(urlId: number, fetchedAt: string, shot: Screenshot | { type: string; data: Uint8Array }): void {
    this.insertScreenshot.run(urlId, fetchedAt, shot.type, shot.data);
  }

  /** The bounds the render of the page captured at `fetchedAt` ran into. */
  renderNotes(urlId: number, fetchedAt: string, notes: readonly string[]): void {
    for (const note of notes) this.insertRenderNote.run(urlId, fetchedAt, note);
  }

  private linkInsert(rows: number): Statement<unknown[]> {
    let statement = this.insertLinks.get(rows);
    if (!statement) {
      const placeholders = Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ');
      // The target's id where it has a url row (the sink writes new URLs before their links), else its text.
      statement = this.db.prepare(`INSERT INTO link (from_id, to_id, to_url, kind, nofollow)
        SELECT v.column1, coalesce(u.id, 0), CASE WHEN u.id IS NULL THEN v.column2 ELSE '' END, v.column3, v.column4
        FROM (VALUES ${placeholders}) v LEFT JOIN url u ON u.url = v.column2
        WHERE true ON CONFLICT DO NOTHING`);
      this.insertLinks.set(rows, statement);
    }
    return statement;
  }
}

/** The exchange as columns: null where the fetcher did not see it. */
function wireColumns(wire: WireExchange | undefined): Recorded<WireExchange> {
  return {
    httpVersion: wire?.httpVersion ?? null,
    reason: wire?.reason ?? null,
    rawHeaders: wire?.rawHeaders ?? null,
    requestMethod: wire?.requestMethod ?? null,
    requestTarget: wire?.requestTarget ?? null,
    requestHeaders: wire?.requestHeaders ?? null,
    remoteIp: wire?.remoteIp ?? null,
    startedAt: wire?.startedAt ?? null,
  };
}

/** A fetched response as a capture row. */
export function fetchedCapture(response: StoredResponse): CaptureRow {
  return {
    status: response.status,
    contentType: response.contentType,
    charset: response.charset,
    location: response.location,
    headers: JSON.stringify(response.headers),
    fetchedAt: response.fetchedAt,
    elapsedMs: response.elapsedMs,
    title: response.title ?? null,
    canonical: response.canonical ?? null,
    robots: response.robots ?? null,
    linksDropped: response.linksDropped ?? 0,
    ...wireColumns(response.wire),
    truncated: null,
    requestBody: null,
  };
}
