import { createHash } from 'node:crypto';
import type { Database, Statement, Transaction } from 'better-sqlite3';
import { asWriteError } from './archive-errors.js';
import { PageTextWriter } from './page-text-writer.js';
import { payloadDigest } from './payload-digest.js';
import type { CommitResult, DiscoveredUrl, PageOutcome, PageSinkPort, StoredResponse } from '../pipeline/ports.js';
import { queryVariantsReason } from '../pipeline/trap-guards.js';

const UPGRADABLE = "(url.state = 'skipped' AND url.error_code IN ('max_depth', 'nofollow') AND excluded.state = 'queued')";
// A page fetched at the depth limit had its links cut; found within the limit, it is fetched again.
const CUT_SHORT = "(url.state = 'done' AND url.kind = 'page' AND url.depth >= @maxDepth AND excluded.depth < @maxDepth)";
// A re-crawl fetches a URL an earlier crawl finished again when a page of this crawl links to it: once per crawl.
const REVISIT = "(url.state IN ('done', 'failed') AND url.crawl < excluded.crawl AND excluded.state = 'queued')";

/** Links written per statement: one call into SQLite for many rows, since a page has dozens. */
const LINKS_PER_INSERT = 32;

export interface SinkLimits {
  /** The crawl the run belongs to (1 for the first): URLs it queues are marked with it. Default 1. */
  crawl?: number;
  /** URLs at most that share one path with different queries (a trap guard); 0 or absent for no limit. */
  maxPerPath?: number;
  /** The crawl's --max-depth, so a page fetched at the limit and found closer is fetched again. */
  maxDepth?: number;
}

/** Writes each page, its links and its final state in one transaction. */
export class SqlitePageSink implements PageSinkPort {
  private readonly bodyId: Statement<[Buffer], { id: number; sha1: string | null }>;
  private readonly insertBody: Statement<[Buffer, number, Uint8Array, string]>;
  private readonly fillSha1: Statement<[string, number]>;
  private readonly upsertResponse: Statement<unknown[]>;
  private readonly insertUrl: Statement<[Record<string, unknown>]>;
  private readonly insertNewUrl: Statement<[Record<string, unknown>]>;
  private readonly countVariant: Statement<[string]>;
  private readonly deleteLinks: Statement<[number]>;
  /** Multi-row link inserts, by row count, prepared once each when first needed. */
  private readonly insertLinks = new Map<number, Statement<unknown[]>>();
  private readonly finish: Statement<unknown[]>;
  private readonly revalidate: Statement<unknown[]>;
  private readonly revisitLinked: Statement<[number], { origin: string }>;
  private readonly text: PageTextWriter;
  private readonly commitTx: Transaction<(outcomes: PageOutcome[]) => CommitResult[]>;

  private readonly variants: Statement<[string], { count: number }>;

  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly runId: number,
    private readonly limits: SinkLimits = {},
  ) {
    this.variants = db.prepare('SELECT count FROM query_variants WHERE path = ?');
    this.bodyId = db.prepare('SELECT id, sha1 FROM body WHERE hash = ?');
    this.insertBody = db.prepare('INSERT INTO body (hash, size, data, sha1) VALUES (?, ?, ?, ?)');
    // A body stored before the archive kept SHA-1s gets one when it is fetched again.
    this.fillSha1 = db.prepare('UPDATE body SET sha1 = ? WHERE id = ?');
    this.upsertResponse = db.prepare(`
      INSERT INTO response (url_id, run_id, status, content_type, charset, location, headers, body_id,
                            fetched_at, elapsed_ms, links_found, links_new, title, canonical, robots, links_dropped,
                            http_version, reason, raw_headers, request_method, request_target, request_headers,
                            remote_ip, started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (url_id) DO UPDATE SET
        run_id = excluded.run_id, status = excluded.status, content_type = excluded.content_type,
        charset = excluded.charset, location = excluded.location, headers = excluded.headers,
        body_id = excluded.body_id, fetched_at = excluded.fetched_at, elapsed_ms = excluded.elapsed_ms,
        links_found = excluded.links_found, links_new = excluded.links_new, title = excluded.title,
        canonical = excluded.canonical, robots = excluded.robots, links_dropped = excluded.links_dropped,
        http_version = excluded.http_version, reason = excluded.reason, raw_headers = excluded.raw_headers,
        request_method = excluded.request_method, request_target = excluded.request_target,
        request_headers = excluded.request_headers, remote_ip = excluded.remote_ip, started_at = excluded.started_at,
        revalidated = 0`);
    // A 304 confirms the stored capture: it keeps its status, headers, body and what its page said; the
    // exchange's time and wire columns are the 304's (the trigger moves the confirmed capture into capture).
    this.revalidate = db.prepare(`
      UPDATE response SET run_id = ?, fetched_at = ?, elapsed_ms = ?, http_version = ?, reason = ?, raw_headers = ?,
        request_method = ?, request_target = ?, request_headers = ?, remote_ip = ?, started_at = ?, revalidated = 1
      WHERE url_id = ?`);
    // The confirmed page's links stand, so what they lead to is visited again in this crawl, as if parsed anew.
    const crawl = Math.trunc(limits.crawl ?? 1);
    this.revisitLinked = db.prepare(`
      UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL, crawl = ${crawl}
      WHERE url IN (SELECT to_url FROM link WHERE from_id = ? AND nofollow = 0 AND kind <> 'canonical')
        AND state IN ('done', 'failed') AND crawl < ${crawl}
      RETURNING origin`);
    // A URL found again closer to a root keeps the shorter depth, and one
    // skipped only for its depth or a nofollow is queued when found by a way
    // that allows it.
    const insert = `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, path_key, crawl)
      VALUES (@url, @fetchUrl, @origin, @kind, @state, @depth, @redirectHops, @code, @message, @from, @pathKey, @crawl)`;
    this.insertUrl = db.prepare(`${insert}
      ON CONFLICT (url) DO UPDATE SET
        depth = min(url.depth, excluded.depth),
        state = iif(${UPGRADABLE} OR ${CUT_SHORT} OR ${REVISIT}, 'queued', url.state),
        tries = iif(${REVISIT}, 0, url.tries),
        crawl = iif(${UPGRADABLE} OR ${REVISIT}, excluded.crawl, url.crawl),
        error_code = iif(${UPGRADABLE} OR ${REVISIT}, NULL, url.error_code),
        error = iif(${UPGRADABLE} OR ${REVISIT}, NULL, url.error)
      WHERE excluded.depth < url.depth OR ${UPGRADABLE} OR ${REVISIT}`);
    // A URL with a query is inserted alone first, so that only a new one counts as a variant of its path.
    this.insertNewUrl = db.prepare(`${insert} ON CONFLICT (url) DO NOTHING`);
    this.countVariant = db.prepare('INSERT INTO query_variants (path, count) VALUES (?, 1) ON CONFLICT (path) DO UPDATE SET count = count + 1');
    this.deleteLinks = db.prepare('DELETE FROM link WHERE from_id = ?');
    this.finish = db.prepare('UPDATE url SET state = ?, tries = ?, error_code = ?, error = ? WHERE id = ?');
    this.text = new PageTextWriter(db);
    this.commitTx = db.transaction((outcomes: PageOutcome[]) => outcomes.map((outcome) => this.write(outcome)));
  }

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  // Leases from the SQLite frontier never expire within a run, so none is checked here.
  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    try {
      return this.commitTx.immediate(outcomes);
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }

  private write(outcome: PageOutcome): CommitResult {
    const from = outcome.claim.id;
    if (outcome.response?.revalidated && this.confirm(from, outcome.response)) {
      const revisited = this.revisitLinked.all(from);
      this.finish.run(outcome.state, outcome.tries, null, null, from);
      return { newUrls: 0, revisitedOrigins: [...new Set(revisited.map((row) => row.origin))] };
    }
    let newUrls = 0;
    // A fetch that stored no response (it failed) leaves the capture stored before as the page, and its links with it.
    if (outcome.response) this.deleteLinks.run(from);
    for (const found of outcome.discovered) {
      if (!found.known && !found.linkOnly) newUrls += this.addUrl(found, from);
    }
    this.storeLinks(from, outcome.discovered);
    if (outcome.response) {
      this.storeResponse(from, outcome.response, outcome.discovered.length, newUrls);
      this.text.write(from, outcome.claim.key, outcome.response);
    }
    const error = outcome.error;
    this.finish.run(outcome.state, outcome.tries, error?.code ?? null, error?.message ?? null, from);
    return { newUrls };
  }

  private storeLinks(from: number, discovered: DiscoveredUrl[]): void {
    for (let start = 0; start < discovered.length; start += LINKS_PER_INSERT) {
      const end = Math.min(start + LINKS_PER_INSERT, discovered.length);
      const values: unknown[] = new Array(4 * (end - start));
      for (let i = start, at = 0; i < end; i++, at += 4) {
        const found = discovered[i]!;
        values[at] = from;
        values[at + 1] = found.key;
        values[at + 2] = found.kind;
        values[at + 3] = found.nofollow ? 1 : 0;
      }
      this.linkInsert(end - start).run(values);
    }
  }

  private linkInsert(rows: number): Statement<unknown[]> {
    let statement = this.insertLinks.get(rows);
    if (!statement) {
      const placeholders = Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ');
      statement = this.db.prepare(`INSERT INTO link (from_id, to_url, kind, nofollow) VALUES ${placeholders} ON CONFLICT DO NOTHING`);
      this.insertLinks.set(rows, statement);
    }
    return statement;
  }

  private addUrl(found: DiscoveredUrl, from: number): number {
    const skip = found.skip ?? this.tooManyVariants(found);
    const fetchUrl = found.url === found.key ? null : found.url;
    const state = skip ? 'skipped' : 'queued';
    const { depth, redirectHops, pathKey } = found;
    const row = {
      url: found.key,
      fetchUrl,
      origin: found.origin,
      kind: found.target,
      state,
      depth,
      redirectHops,
      code: skip?.code ?? null,
      message: skip?.message ?? null,
      from,
      pathKey: pathKey ?? null,
      maxDepth: this.limits.maxDepth ?? null,
      crawl: this.limits.crawl ?? 1,
    };
    if (pathKey !== undefined && this.insertNewUrl.run(row).changes > 0) {
      this.countVariant.run(pathKey);
      return 1;
    }
    return this.insertUrl.run(row).changes;
  }

  private tooManyVariants(found: DiscoveredUrl) {
    const { maxPerPath = 0 } = this.limits;
    if (!found.pathKey || maxPerPath <= 0) return undefined;
    const count = this.variants.get(found.pathKey)?.count ?? 0;
    if (count < maxPerPath) return undefined;
    return queryVariantsReason(maxPerPath, found.pathKey);
  }

  private storeResponse(urlId: number, response: StoredResponse, linksFound: number, linksNew: number): void {
    const hash = response.sha256 ?? createHash('sha256').update(response.body).digest();
    const bodyId = this.storeBody(hash, response);
    const wire = response.wire;
    this.upsertResponse.run(
      urlId,
      this.runId,
      response.status,
      response.contentType,
      response.charset,
      response.location,
      JSON.stringify(response.headers),
      bodyId,
      response.fetchedAt,
      Math.round(response.elapsedMs),
      linksFound,
      linksNew,
      response.title ?? null,
      response.canonical ?? null,
      response.robots ?? null,
      response.linksDropped ?? 0,
      ...wireValues(wire),
    );
  }

  /** Records a 304 as a new capture of the stored one; false when there is none to confirm. */
  private confirm(urlId: number, response: StoredResponse): boolean {
    const wire = response.wire;
    return (
      this.revalidate.run(
        this.runId,
        response.fetchedAt,
        Math.round(response.elapsedMs),
        ...wireValues(wire),
        urlId,
      ).changes > 0
    );
  }

  /** The id of the body with this SHA-256, stored with its SHA-1 if new; the SHA-1 is computed only for a body that needs one. */
  private storeBody(hash: Buffer, { body, sha1 }: StoredResponse): number {
    const known = this.bodyId.get(hash);
    if (!known) return Number(this.insertBody.run(hash, body.byteLength, body, payloadDigest(body, sha1)).lastInsertRowid);
    if (known.sha1 === null) this.fillSha1.run(payloadDigest(body, sha1), known.id);
    return known.id;
  }
}

/** The wire columns of a response row, in the order the statements name them. */
function wireValues(wire: StoredResponse['wire']): (string | Buffer | null)[] {
  return [
    wire?.httpVersion ?? null,
    wire?.reason ?? null,
    wire?.rawHeaders ?? null,
    wire?.requestMethod ?? null,
    wire?.requestTarget ?? null,
    wire?.requestHeaders ?? null,
    wire?.remoteIp ?? null,
    wire?.startedAt ?? null,
  ];
}
