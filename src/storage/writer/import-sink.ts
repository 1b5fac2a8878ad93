import type { Database, Statement } from 'better-sqlite3';
import { asWriteError } from '../archive/archive-errors.js';
import { bodyBytes } from '../archive/body-bytes.js';
import { CaptureWriter, fetchedCapture, isPageRequest, type CaptureRow } from './capture-writer.js';
import { rebuildLinkDepths } from './rebuild-link-depths.js';
import { UrlRows } from './url-rows.js';
import { ListedPages } from './listed-pages.js';
import { ArchivedPayloads, type ArchivedOriginal, type StoredPayload } from './archived-payload.js';
import { SetAsideRevisits, type SetAsideRevisit } from './set-aside-revisits.js';
import type { CaptureColumns, DiscoveredUrl, Reason, StoredResponse, UrlKind, WireExchange } from '../../pipeline/ports.js';

/** What the archive knows of a URL before a response for it is imported. */
export interface KnownUrl {
  id: number;
  kind: UrlKind;
  depth: number;
  redirectHops: number;
}

/**
 * A response as a WARC holds it: the stored response with the wire it came over (null for a resource record,
 * which holds no HTTP message), and what the record said of it. `truncated` is its WARC-Truncated, with
 * REQUEST_BODY_LEFT_OUT after it when the request's body is not whole; `requestBody` is null when left out.
 */
export interface ImportedResponse
  extends StoredResponse, Pick<CaptureColumns, keyof WireExchange | 'truncated' | 'requestBody'>, Pick<CaptureRow, 'notes'> {}

/**
 * The word `truncated` ends with (after the response's WARC-Truncated, if any) when the request's body is not
 * whole: its record was over --max-body, so its body was left out (request_body is null), or it said it was cut.
 */
export const REQUEST_BODY_LEFT_OUT = 'request-body';

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
  /** The run it is a capture of, when not the import's own (see ImportSink.crawlRun). */
  runId?: number;
  /** A 304 exported as a revisit (crawlite's Crawlite-Revalidated): a revalidation of the capture it confirms. */
  revalidated?: boolean;
}

/** One crawl of the archive a crawlite WARC was exported from, as its warcinfo names it. */
export interface ExportedCrawl {
  crawl: number;
  startedAt: string;
  endedAt: string | null;
  endedBy: string | null;
}

/** Found URLs whose depth is remembered at most (see ImportSink.foundDepths). */
const FOUND_DEPTHS_KEPT = 50_000;

/** A URL whose only records are answers to requests other than GET: kept in `captures`, never its page. */
export const NOT_GET: Reason = {
  code: 'not_get',
  message: 'the WARC files imported hold only answers to requests other than GET for it (in captures)',
};

export type { StoredPayload, SetAsideRevisit };

/** What a revisit record says of its original: the record's id, its payload digest, its URL (as given and as a key), its time. */
export interface RefersTo extends ArchivedOriginal {
  recordId?: string | undefined;
  uri?: string | undefined;
}

/** A discovered URL that no imported record answered: it was never fetched into this archive. */
export const NOT_IN_WARC: Reason = {
  code: 'not_in_warc',
  message: 'found on an imported page; the WARC files imported hold no response for it',
};

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
  private readonly urls: UrlRows;
  private readonly countVariant: Statement<[string]>;
  private readonly latestAt: Statement<[number], { fetched_at: string }>;
  private readonly remember: Statement<[string | null, string | null, string, number | null, number | null, string | null]>;
  private readonly byRecordId: Statement<[string], StoredPayload>;
  private readonly byDigest: Statement<[string], StoredPayload>;
  private readonly byUri: Statement<[string], StoredPayload>;
  private readonly skippedBy: Statement<[string | null, string | null, string | null, string | null], { skipped: string }>;
  private readonly archived: ArchivedPayloads;
  private readonly waiting: SetAsideRevisits;
  private readonly findCrawlRun: Statement<[string, number], { id: number }>;
  private readonly insertCrawlRun: Statement<[string, string | null, string | null, string, number], { id: number }>;
  private readonly markPageRevalidated: Statement<[number, string]>;
  private readonly markEarlierRevalidated: Statement<[number, string, number]>;
  /** The runs this import stored captures in: its own, and one per crawl of a crawlite WARC of several. */
  private readonly runIds: Set<number>;
  /** Crawls in the archive before this import: an exported crawl n becomes crawl n after them. */
  private crawlsBefore: number | undefined;
  /** After the last file: a revisit may then take a payload by its URL alone, whatever digest it names. */
  private lastChance = false;
  private readonly bodyData: Statement<[number], { data: Buffer; size: number }>;
  private readonly responseStmt: Statement<[number], StoredResponseRow>;
  private readonly writer: CaptureWriter;
  /**
   * Found URLs this import wrote lately, with their depth in the archive: a link found again no closer
   * needs neither the insert nor the update. Most of a site's links are to pages seen already (its
   * navigation), and those two statements were the import's largest cost. Bounded, so memory stays flat.
   */
  private readonly foundDepths = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly runId: number,
  ) {
    // A response not imported is noted too (url_id and body_id null, `skipped` its reason), so a revisit of it says why it is not.
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_payload (
      record_id TEXT, digest TEXT, uri TEXT NOT NULL, url_id INTEGER, body_id INTEGER, skipped TEXT)`);
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_record ON import_payload (record_id)');
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_digest ON import_payload (digest)');
    db.exec('CREATE INDEX IF NOT EXISTS temp.import_payload_uri ON import_payload (uri)');
    this.knownStmt = db.prepare('SELECT id, kind, depth, redirect_hops FROM url WHERE url = ?');
    this.urls = new UrlRows(db);
    this.countVariant = db.prepare(
      'INSERT INTO query_variants (path, count) VALUES (?, 1) ON CONFLICT (path) DO UPDATE SET count = count + 1',
    );
    this.latestAt = db.prepare('SELECT fetched_at FROM response WHERE url_id = ?');
    this.remember = db.prepare('INSERT INTO import_payload (record_id, digest, uri, url_id, body_id, skipped) VALUES (?, ?, ?, ?, ?, ?)');
    this.byRecordId = db.prepare(
      'SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE record_id = ? AND skipped IS NULL LIMIT 1',
    );
    this.byDigest = db.prepare(
      'SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE digest = ? AND skipped IS NULL ORDER BY rowid DESC LIMIT 1',
    );
    this.byUri = db.prepare(
      'SELECT url_id AS urlId, body_id AS bodyId FROM import_payload WHERE uri = ? AND skipped IS NULL ORDER BY rowid DESC LIMIT 1',
    );
    this.skippedBy = db.prepare(`SELECT skipped FROM import_payload WHERE skipped IS NOT NULL
      AND (record_id = ? OR digest = ? OR (? IS NULL AND uri = ?)) LIMIT 1`);
    this.archived = new ArchivedPayloads(db);
    this.waiting = new SetAsideRevisits(db);
    this.bodyData = db.prepare('SELECT data, size FROM body WHERE id = ?');
    this.responseStmt = db.prepare(`SELECT status, headers, http_version AS httpVersion, reason, raw_headers AS rawHeaders
                                  FROM response WHERE url_id = ?`);
    this.writer = new CaptureWriter(db);
    this.runIds = new Set([runId]);
    // A crawl imported again is the run imported before, so a WARC imported twice adds no crawl.
    this.findCrawlRun = db.prepare(`SELECT id FROM run WHERE started_at = ? AND json_valid(options)
      AND json_extract(options, '$.import.crawl') = ? ORDER BY id LIMIT 1`);
    this.insertCrawlRun = db.prepare(
      'INSERT INTO run (started_at, ended_at, ended_by, options, crawl) VALUES (?, ?, ?, ?, ?) RETURNING id',
    );
    this.markPageRevalidated = db.prepare('UPDATE response SET revalidated = 1 WHERE url_id = ? AND fetched_at = ?');
    this.markEarlierRevalidated = db.prepare('UPDATE capture SET revalidated = 1 WHERE url_id = ? AND fetched_at = ? AND body_id = ?');
  }

  /**
   * The run that stands for one crawl of the archive a crawlite WARC was exported from: its times, and
   * the next crawl number after those the archive held before the import, so `diff` compares the crawls
   * as it did in that archive. Its options say `import` (so `stats` counts it as imported) and the crawl.
   */
  crawlRun(crawl: ExportedCrawl, files: string[]): number {
    try {
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
      const found = this.findCrawlRun.get(crawl.startedAt, crawl.crawl);
      let id = found?.id;
      if (id === undefined) {
        this.crawlsBefore ??= (
          this.db.prepare('SELECT coalesce(max(crawl), 0) AS n FROM run WHERE id <> ?').get(this.runId) as { n: number }
        ).n;
        const options = JSON.stringify({ import: { files, crawl: crawl.crawl } });
        id = this.insertCrawlRun.get(crawl.startedAt, crawl.endedAt, crawl.endedBy, options, this.crawlsBefore + crawl.crawl)!.id;
      }
      this.runIds.add(id);
      return id;
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  known(key: string): KnownUrl | undefined {
    const row = this.knownStmt.get(key);
    return row && { id: row.id, kind: row.kind, depth: row.depth, redirectHops: row.redirect_hops };
  }

  /** Stores a page in the open batch (opening one if none is); returns where its payload went and how many URLs were new. */
  write(page: ImportedPage): StoredPayload & { newUrls: number; merged?: true } {
    try {
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
      const merged = this.storedAlready(page);
      if (merged) return merged;
      if (!isPageRequest(page.response.requestMethod)) return this.otherMethod(page);
      const earlier = this.earlierThanPage(page);
      if (earlier !== undefined) return earlier;
      const urlId = this.urls.importedPage({
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
      });
      let newUrls = 0;
      for (const found of page.discovered) if (!found.linkOnly) newUrls += this.addFound(found, urlId);
      const bodyId = this.writer.body(page.response.body, page.response);
      this.writer.capture(urlId, page.runId ?? this.runId, bodyId, importedCapture(page.response), {
        found: page.discovered.length,
        new: newUrls,
      });
      this.writer.replaceLinks(urlId, page.discovered);
      this.writer.pageText(urlId, page.key, page.response);
      if (page.revalidated) this.revalidated(urlId, bodyId, page.response.fetchedAt);
      return { urlId, bodyId, newUrls };
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /**
   * The capture as the archive keeps it already, if it does: the same in all but its WARC-Record-ID (a WARC
   * imported again, or two records of one exchange). It is merged: nothing is written, and the import counts it.
   */
  private storedAlready(page: ImportedPage): (StoredPayload & { newUrls: number; merged: true }) | undefined {
    const known = this.knownStmt.get(page.key);
    if (known === undefined) return undefined;
    const bodyId = this.writer.body(page.response.body, page.response);
    if (!this.writer.stored(known.id, bodyId, importedCapture(page.response))) return undefined;
    if (page.revalidated) this.revalidated(known.id, bodyId, page.response.fetchedAt);
    return { urlId: known.id, bodyId, newUrls: 0, merged: true };
  }

  /**
   * A capture older than the URL's page (a WARC whose records are not in time order, or an older WARC
   * imported after a newer one) is kept among the URL's earlier captures; the page stays, with its
   * links and text. Same time: the later record is the later capture.
   */
  private earlierThanPage(page: ImportedPage): (StoredPayload & { newUrls: number }) | undefined {
    const known = this.knownStmt.get(page.key);
    if (known === undefined) return undefined;
    const latest = this.latestAt.get(known.id);
    if (latest === undefined || latest.fetched_at <= page.response.fetchedAt) return undefined;
    const bodyId = this.writer.body(page.response.body, page.response);
    this.writer.capture(known.id, page.runId ?? this.runId, bodyId, importedCapture(page.response), {
      found: page.discovered.length,
      new: 0,
    });
    if (page.revalidated) this.revalidated(known.id, bodyId, page.response.fetchedAt);
    return { urlId: known.id, bodyId, newUrls: 0 };
  }

  /**
   * The answer to a request other than GET (a POST's, say) is kept as a capture of its URL, with the
   * request's body, and never becomes the URL's page: a replay of the URL is a GET, and must not be
   * answered with what a form submission got. A URL no GET record answered is `skipped` (not_get).
   */
  private otherMethod(page: ImportedPage): StoredPayload & { newUrls: number } {
    this.urls.importedOtherMethod({
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
    const bodyId = this.writer.body(page.response.body, page.response);
    this.writer.capture(urlId, page.runId ?? this.runId, bodyId, importedCapture(page.response), { found: 0, new: 0 });
    return { urlId, bodyId, newUrls: 0 };
  }

  /** Stores the screenshot of the page `key` captured at `fetchedAt`; false when the archive holds no such URL. */
  screenshot(key: string, fetchedAt: string, shot: { type: string; data: Uint8Array }): boolean {
    try {
      const known = this.knownStmt.get(key);
      if (!known) return false;
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
      this.writer.screenshot(known.id, fetchedAt, shot);
      return true;
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /** Marks the capture just written a revalidation, wherever it went (the page, or an earlier capture). */
  private revalidated(urlId: number, bodyId: number, fetchedAt: string): void {
    if (this.markPageRevalidated.run(urlId, fetchedAt).changes === 0) this.markEarlierRevalidated.run(urlId, fetchedAt, bodyId);
  }

  /** Notes which record stored which payload, for the revisits that come later. */
  rememberPayload(recordId: string | null, digest: string | null, uri: string, stored: StoredPayload): void {
    this.remember.run(recordId, digest, uri, stored.urlId, stored.bodyId, null);
  }

  /** Notes a response not imported, and why, for a revisit of it to say so. */
  rememberSkipped(recordId: string | null, digest: string | null, uri: string, code: string): void {
    this.remember.run(recordId, digest, uri, null, null, code);
  }

  /**
   * The payload a record of this import stored: by the revisit's record id, else its payload digest, else
   * (naming neither) its URI; else a capture already in the archive with that digest or time (see
   * ArchivedPayloads). After the last file, a payload of the URI is taken whatever the digest named.
   */
  findPayload(refersTo: RefersTo): StoredPayload | undefined {
    const named = refersTo.recordId !== undefined || refersTo.digest !== undefined;
    return (
      (refersTo.recordId ? this.byRecordId.get(refersTo.recordId) : undefined) ??
      (refersTo.digest ? this.byDigest.get(refersTo.digest) : undefined) ??
      (refersTo.uri && !named ? this.byUri.get(refersTo.uri) : undefined) ??
      this.archived.find(refersTo) ??
      (refersTo.uri && named && this.lastChance ? this.byUri.get(refersTo.uri) : undefined)
    );
  }

  /** Why the original a revisit names was not imported, if a record of this import was it. */
  skippedOriginal(refersTo: RefersTo): string | undefined {
    const recordId = refersTo.recordId ?? null;
    const digest = refersTo.digest ?? null;
    return this.skippedBy.get(recordId, digest, recordId ?? digest, refersTo.uri ?? null)?.skipped;
  }

  /** Keeps a revisit whose original is not known yet, to be read again after the last file (see SetAsideRevisits). */
  setAside(revisit: Omit<SetAsideRevisit, 'seq'>): void {
    try {
      this.waiting.add(revisit);
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /** The revisits set aside after `seq`, a few at a time; from the first call on, a revisit may take a payload by its URL alone. */
  setAsideAfter(seq: number, count: number): SetAsideRevisit[] {
    this.lastChance = true;
    return this.waiting.next(seq, count);
  }

  /** A revisit set aside, now resolved or reported. */
  dropSetAside(seq: number): void {
    this.waiting.drop(seq);
  }

  /** The archive stores bodies compressed: the import's parse threads compress the bodies they read. */
  get compact(): boolean {
    return this.writer.compact;
  }

  bodyOf(bodyId: number): Buffer {
    const row = this.bodyData.get(bodyId)!;
    return bodyBytes(row.data, row.size);
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

  /** The pages a WACZ's lists name, gathered for this import's archive (see ListedPages). */
  listedPages(): ListedPages {
    return new ListedPages(this.db, this.path);
  }

  /** After the last record: kinds and depths from the link graph, as a crawl would have them (see rebuildLinkDepths). */
  rebuildKindsAndDepths(rootKeys: string[]): void {
    try {
      rebuildLinkDepths(this.db, [...this.runIds], rootKeys);
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  /** Drops the open batch (after a failed write). */
  rollback(): void {
    if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  private addFound(found: DiscoveredUrl, from: number): number {
    const seenAt = this.foundDepths.get(found.key);
    if (seenAt !== undefined && seenAt <= found.depth) return 0;
    if (this.foundDepths.size >= FOUND_DEPTHS_KEPT) this.foundDepths.delete(this.foundDepths.keys().next().value!);
    this.foundDepths.set(found.key, found.depth);
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
    if (this.urls.importedFound(row) > 0) {
      if (found.pathKey) this.countVariant.run(found.pathKey);
      return 1;
    }
    // Found again closer to the first page: the shorter distance is the URL's depth, as in a crawl.
    this.urls.closer(found.key, found.depth);
    return 0;
  }
}

/** An imported response as a capture row: the wire as the WARC holds it. */
function importedCapture(response: ImportedResponse): CaptureRow {
  // The response as a crawl's, then the exchange as the WARC recorded it (fields may be missing there).
  return {
    ...fetchedCapture(response),
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
    ...(response.notes?.length ? { notes: response.notes } : {}),
  };
}

export interface StoredResponseRow {
  status: number;
  headers: string;
  httpVersion: string | null;
  reason: string | null;
  rawHeaders: Buffer | null;
}
