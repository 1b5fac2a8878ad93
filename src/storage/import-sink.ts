import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { asWriteError } from './archive-errors.js';
import { PageTextWriter } from './page-text-writer.js';
import { payloadDigest } from './payload-digest.js';
import { rebuildLinkDepths } from './rebuild-link-depths.js';
import type { DiscoveredUrl, Reason, StoredResponse, UrlKind } from '../pipeline/ports.js';

/** What the archive knows of a URL before a response for it is imported. */
export interface KnownUrl {
  id: number;
  kind: UrlKind;
  depth: number;
  redirectHops: number;
}

/** A response as a WARC holds it: the stored response with the wire it came over. */
export interface ImportedResponse extends StoredResponse {
  httpVersion: string;
  reason: string;
  rawHeaders: Buffer;
  requestMethod: string | null;
  requestTarget: string | null;
  requestHeaders: Buffer | null;
  remoteIp: string | null;
  startedAt: string | null;
  /** WARC-Truncated: why the record's payload is not whole. */
  truncated: string | null;
  /** The request's body, for a request other than GET. */
  requestBody: Buffer | null;
}

export interface ImportedPage {
  url: string;
  key: string;
  origin: string;
  pathKey?: string;
  kind: UrlKind;
  depth: number;
  redirectHops: number;
  state: 'done' | 'failed';
  error?: Reason;
  response: ImportedResponse;
  discovered: DiscoveredUrl[];
}

/** A URL whose only records are answers to requests other than GET: kept in `captures`, never its page. */
export const NOT_GET: Reason = { code: 'not_get', message: 'the WARC files imported hold only answers to requests other than GET for it (in captures)' };

/** A request whose answer may be a URL's page: a GET, or one the WARC did not record. */
const isPageRequest = (method: string | null): boolean => method === null || method.toUpperCase() === 'GET';

/** Where an imported payload went, so a revisit record can point at it. */
export interface StoredPayload {
  urlId: number;
  bodyId: number;
}

/** A discovered URL that no imported record answered: it was never fetched into this archive. */
export const NOT_IN_WARC: Reason = { code: 'not_in_warc', message: 'found on an imported page; the WARC files imported hold no response for it' };

/**
 * Writes imported responses like the page sink writes a crawl's: a page, its
 * links and its `done` state together, with the wire columns a WARC carries.
 * Writes go into one open transaction that `commit` ends, so a batch of
 * records lands whole or not at all (kill -9 included). A URL found on a page
 * and absent from the WARC is `skipped` (not_in_warc) until a record for it
 * comes. Which record stored which payload is kept in a TEMP table (outside
 * the archive, gone with the connection), to resolve revisit records.
 */
export class ImportSink {
  private readonly knownStmt: Statement<[string], { id: number; kind: UrlKind; depth: number; redirect_hops: number }>;
  private readonly upsertPage: Statement<[Record<string, unknown>], { id: number }>;
  private readonly insertFound: Statement<[Record<string, unknown>]>;
  private readonly lowerDepth: Statement<[{ depth: number; url: string }]>;
  private readonly countVariant: Statement<[string]>;
  private readonly deleteLinks: Statement<[number]>;
  private readonly insertLink: Statement<[number, string, string, number]>;
  private readonly bodyByHash: Statement<[Buffer], { id: number }>;
  private readonly insertBody: Statement<[Buffer, number, Uint8Array, string]>;
  private readonly fillSha1: Statement<[string, number]>;
  private readonly upsertResponse: Statement<[Record<string, unknown>]>;
  private readonly remember: Statement<[string | null, string | null, string, number, number]>;
  private readonly byRecordId: Statement<[string], StoredPayload>;
  private readonly byDigest: Statement<[string], StoredPayload>;
  private readonly byUri: Statement<[string], StoredPayload>;
  private readonly bodyData: Statement<[number], { data: Buffer }>;
  private readonly responseStmt: Statement<[number], StoredResponseRow>;
  private readonly latestAt: Statement<[number], { fetched_at: string }>;
  private readonly insertEarlier: Statement<[Record<string, unknown>]>;
  private readonly insertOtherMethodUrl: Statement<[Record<string, unknown>]>;
  private readonly text: PageTextWriter;

  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly runId: number,
  ) {
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_payload (
      record_id TEXT, digest TEXT, uri TEXT NOT NULL, url_id INTEGER NOT NULL, body_id INTEGER NOT NULL)`);
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_record ON import_payload (record_id)');
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_digest ON import_payload (digest)');
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_uri ON import_payload (uri)');
    this.knownStmt = db.prepare('SELECT id, kind, depth, redirect_hops FROM url WHERE url = ?');
    this.upsertPage = db.prepare(`
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, tries, error_code, error, path_key)
      VALUES (@url, @fetchUrl, @origin, @kind, @state, @depth, @redirectHops, 1, @code, @message, @pathKey)
      ON CONFLICT (url) DO UPDATE SET state = excluded.state, tries = max(url.tries, 1),
        error_code = excluded.error_code, error = excluded.error
      RETURNING id`);
    this.insertFound = db.prepare(`
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, path_key)
      VALUES (@url, @fetchUrl, @origin, @kind, 'skipped', @depth, @redirectHops, @code, @message, @from, @pathKey)
      ON CONFLICT (url) DO NOTHING`);
    this.lowerDepth = db.prepare('UPDATE url SET depth = @depth WHERE url = @url AND depth > @depth');
    this.countVariant = db.prepare('INSERT INTO query_variants (path, count) VALUES (?, 1) ON CONFLICT (path) DO UPDATE SET count = count + 1');
    this.deleteLinks = db.prepare('DELETE FROM link WHERE from_id = ?');
    this.insertLink = db.prepare('INSERT INTO link (from_id, to_url, kind, nofollow) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.bodyByHash = db.prepare('SELECT id FROM body WHERE hash = ?');
    this.insertBody = db.prepare('INSERT INTO body (hash, size, data, sha1) VALUES (?, ?, ?, ?)');
    this.fillSha1 = db.prepare('UPDATE body SET sha1 = ? WHERE id = ? AND sha1 IS NULL');
    this.upsertResponse = db.prepare(`
      INSERT INTO response (url_id, run_id, status, content_type, charset, location, headers, body_id, fetched_at, elapsed_ms,
                            links_found, links_new, title, canonical, robots, links_dropped, http_version, reason, raw_headers,
                            request_method, request_target, request_headers, remote_ip, started_at, truncated, request_body)
      VALUES (@urlId, @runId, @status, @contentType, @charset, @location, @headers, @bodyId, @fetchedAt, @elapsedMs,
              @linksFound, @linksNew, @title, @canonical, @robots, @linksDropped, @httpVersion, @reason, @rawHeaders,
              @requestMethod, @requestTarget, @requestHeaders, @remoteIp, @startedAt, @truncated, @requestBody)
      ON CONFLICT (url_id) DO UPDATE SET
        run_id = excluded.run_id, status = excluded.status, content_type = excluded.content_type, charset = excluded.charset,
        location = excluded.location, headers = excluded.headers, body_id = excluded.body_id, fetched_at = excluded.fetched_at,
        elapsed_ms = excluded.elapsed_ms, links_found = excluded.links_found, links_new = excluded.links_new,
        title = excluded.title, canonical = excluded.canonical, robots = excluded.robots, links_dropped = excluded.links_dropped,
        http_version = excluded.http_version, reason = excluded.reason, raw_headers = excluded.raw_headers,
        request_method = excluded.request_method, request_target = excluded.request_target,
        request_headers = excluded.request_headers, remote_ip = excluded.remote_ip, started_at = excluded.started_at,
        truncated = excluded.truncated, request_body = excluded.request_body`);
    this.remember = db.prepare('INSERT INTO import_payload (record_id, digest, uri, url_id, body_id) VALUES (?, ?, ?, ?, ?)');
    this.byRecordId = db.prepare('SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE record_id = ? LIMIT 1');
    this.byDigest = db.prepare('SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE digest = ? ORDER BY rowid DESC LIMIT 1');
    this.byUri = db.prepare('SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE uri = ? ORDER BY rowid DESC LIMIT 1');
    this.bodyData = db.prepare('SELECT data FROM body WHERE id = ?');
    this.responseStmt = db.prepare(`SELECT status, headers, http_version AS httpVersion, reason, raw_headers AS rawHeaders
                                  FROM response WHERE url_id = ?`);
    this.latestAt = db.prepare('SELECT fetched_at FROM response WHERE url_id = ?');
    // The same capture (time, status, payload, method) already kept is not kept twice: a WARC imported again.
    this.insertEarlier = db.prepare(`
      INSERT INTO capture (url_id, run_id, status, content_type, charset, location, headers, body_id, fetched_at, elapsed_ms,
                           links_found, links_new, title, canonical, robots, links_dropped, http_version, reason, raw_headers,
                           request_method, request_target, request_headers, remote_ip, started_at, truncated, request_body)
      SELECT @urlId, @runId, @status, @contentType, @charset, @location, @headers, @bodyId, @fetchedAt, @elapsedMs,
             @linksFound, @linksNew, @title, @canonical, @robots, @linksDropped, @httpVersion, @reason, @rawHeaders,
             @requestMethod, @requestTarget, @requestHeaders, @remoteIp, @startedAt, @truncated, @requestBody
      WHERE NOT EXISTS (SELECT 1 FROM capture WHERE url_id = @urlId AND fetched_at = @fetchedAt AND status = @status
                          AND body_id = @bodyId AND request_method IS @requestMethod AND request_body IS @requestBody)
        AND NOT EXISTS (SELECT 1 FROM response WHERE url_id = @urlId AND fetched_at = @fetchedAt AND status = @status
                          AND body_id = @bodyId AND request_method IS @requestMethod)`);
    this.insertOtherMethodUrl = db.prepare(`
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, tries, error_code, error, path_key)
      VALUES (@url, @fetchUrl, @origin, @kind, 'skipped', @depth, @redirectHops, 1, @code, @message, @pathKey)
      ON CONFLICT (url) DO NOTHING`);
    this.text = new PageTextWriter(db);
  }

  known(key: string): KnownUrl | undefined {
    const row = this.knownStmt.get(key);
    return row && { id: row.id, kind: row.kind, depth: row.depth, redirectHops: row.redirect_hops };
  }

  /** Stores a page in the open batch (opening one if none is); returns where its payload went and how many URLs were new. */
  write(page: ImportedPage): StoredPayload & { newUrls: number } {
    try {
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
      if (!isPageRequest(page.response.requestMethod)) return this.otherMethod(page);
      const earlier = this.earlierThanLatest(page);
      if (earlier !== undefined) return earlier;
      const urlId = this.upsertPage.get({
        url: page.key,
        fetchUrl: page.url === page.key ? null : page.url,
        origin: page.origin,
        kind: page.kind,
        state: page.state,
        depth: page.depth,
        redirectHops: page.redirectHops,
        code: page.error?.code ?? null,
        message: page.error?.message ?? null,
        pathKey: page.pathKey ?? null,
      })!.id;
      let newUrls = 0;
      for (const found of page.discovered) if (!found.linkOnly) newUrls += this.addFound(found, urlId);
      this.deleteLinks.run(urlId);
      for (const found of page.discovered) this.insertLink.run(urlId, found.key, found.kind, found.nofollow ? 1 : 0);
      const bodyId = this.storeBody(page.response.body);
      this.storeResponse(urlId, bodyId, page.response, page.discovered.length, newUrls);
      this.text.write(urlId, page.key, page.response);
      return { urlId, bodyId, newUrls };
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /**
   * A capture older than the one the URL already has (a WARC whose records are not in time order, or
   * an older WARC imported after a newer one) is kept among the URL's earlier captures; the latest
   * stays the URL's page, with its links and text. Same time: the later record is the later capture.
   */
  private earlierThanLatest(page: ImportedPage): (StoredPayload & { newUrls: number }) | undefined {
    const known = this.knownStmt.get(page.key);
    if (known === undefined) return undefined;
    const latest = this.latestAt.get(known.id);
    if (latest === undefined || latest.fetched_at <= page.response.fetchedAt) return undefined;
    const bodyId = this.storeBody(page.response.body);
    this.insertEarlier.run(this.responseRow(known.id, bodyId, page.response, page.discovered.length, 0));
    return { urlId: known.id, bodyId, newUrls: 0 };
  }

  /**
   * The answer to a request other than GET (a POST's, say) is kept as a capture of its URL, with the
   * request's body, and never becomes the URL's page: a replay of the URL is a GET, and must not be
   * answered with what a form submission got. A URL no GET record answered is `skipped` (not_get).
   */
  private otherMethod(page: ImportedPage): StoredPayload & { newUrls: number } {
    this.insertOtherMethodUrl.run({
      url: page.key,
      fetchUrl: page.url === page.key ? null : page.url,
      origin: page.origin,
      kind: page.kind,
      depth: page.depth,
      redirectHops: page.redirectHops,
      pathKey: page.pathKey ?? null,
      code: NOT_GET.code,
      message: NOT_GET.message,
    });
    const urlId = this.knownStmt.get(page.key)!.id;
    const bodyId = this.storeBody(page.response.body);
    this.insertEarlier.run(this.responseRow(urlId, bodyId, page.response, 0, 0));
    return { urlId, bodyId, newUrls: 0 };
  }

  /** Notes which record stored which payload, for the revisits that come later. */
  rememberPayload(recordId: string | null, digest: string | null, uri: string, stored: StoredPayload): void {
    this.remember.run(recordId, digest, uri, stored.urlId, stored.bodyId);
  }

  /** The payload an earlier record stored: by its record id, else its payload digest, else its URI. */
  findPayload(refersTo: { recordId?: string; digest?: string; uri?: string }): StoredPayload | undefined {
    return (
      (refersTo.recordId ? this.byRecordId.get(refersTo.recordId) : undefined) ??
      (refersTo.digest ? this.byDigest.get(refersTo.digest) : undefined) ??
      (refersTo.uri ? this.byUri.get(refersTo.uri) : undefined)
    );
  }

  bodyOf(bodyId: number): Buffer {
    return this.bodyData.get(bodyId)!.data;
  }

  /** The stored status and headers of a URL's response, for a revisit that brings none of its own (304). */
  responseOf(urlId: number): StoredResponseRow | undefined {
    return this.responseStmt.get(urlId);
  }

  /** Ends the open batch: everything written since the last commit lands together. */
  commit(): void {
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /** After the last record: kinds and depths from the link graph, as a crawl would have them (see rebuildLinkDepths). */
  rebuildKindsAndDepths(rootKeys: string[]): void {
    try {
      rebuildLinkDepths(this.db, this.runId, rootKeys);
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /** Drops the open batch (after a failed write). */
  rollback(): void {
    if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  private addFound(found: DiscoveredUrl, from: number): number {
    const row = {
      url: found.key,
      fetchUrl: found.url === found.key ? null : found.url,
      origin: found.origin,
      kind: found.target,
      depth: found.depth,
      redirectHops: found.redirectHops,
      code: NOT_IN_WARC.code,
      message: NOT_IN_WARC.message,
      from,
      pathKey: found.pathKey ?? null,
    };
    if (this.insertFound.run(row).changes > 0) {
      if (found.pathKey) this.countVariant.run(found.pathKey);
      return 1;
    }
    // Found again closer to the first page: the shorter distance is the URL's depth, as in a crawl.
    this.lowerDepth.run({ depth: found.depth, url: found.key });
    return 0;
  }

  private storeBody(body: Uint8Array): number {
    const hash = createHash('sha256').update(body).digest();
    const sha1 = payloadDigest(body);
    const existing = this.bodyByHash.get(hash)?.id;
    if (existing !== undefined) {
      this.fillSha1.run(sha1, existing);
      return existing;
    }
    return Number(this.insertBody.run(hash, body.byteLength, body, sha1).lastInsertRowid);
  }

  private storeResponse(urlId: number, bodyId: number, response: ImportedResponse, linksFound: number, linksNew: number): void {
    this.upsertResponse.run(this.responseRow(urlId, bodyId, response, linksFound, linksNew));
  }

  private responseRow(urlId: number, bodyId: number, response: ImportedResponse, linksFound: number, linksNew: number): Record<string, unknown> {
    return {
      urlId,
      runId: this.runId,
      status: response.status,
      contentType: response.contentType,
      charset: response.charset,
      location: response.location,
      headers: JSON.stringify(response.headers),
      bodyId,
      fetchedAt: response.fetchedAt,
      elapsedMs: Math.round(response.elapsedMs),
      linksFound,
      linksNew,
      title: response.title ?? null,
      canonical: response.canonical ?? null,
      robots: response.robots ?? null,
      linksDropped: response.linksDropped ?? 0,
      httpVersion: response.httpVersion,
      reason: response.reason,
      rawHeaders: response.rawHeaders,
      requestMethod: response.requestMethod,
      requestTarget: response.requestTarget,
      requestHeaders: response.requestHeaders,
      remoteIp: response.remoteIp,
      startedAt: response.startedAt,
      truncated: response.truncated,
      requestBody: response.requestBody,
    };
  }
}

export interface StoredResponseRow {
  status: number;
  headers: string;
  httpVersion: string | null;
  reason: string | null;
  rawHeaders: Buffer | null;
}
