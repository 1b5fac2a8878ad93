import type { Database, Statement, Transaction } from 'better-sqlite3';
import { asWriteError } from '../archive/archive-errors.js';
import { linkKindSql } from '../archive/link-kind-codes.js';
import { CaptureWriter, fetchedCapture } from '../writer/capture-writer.js';
import { UrlRows, type FoundUrlRow } from '../writer/url-rows.js';
import { PageExchanges } from './page-exchanges.js';
import type { CommitResult, DiscoveredUrl, PageOutcome, PageSinkPort } from '../../pipeline/ports.js';
import { finishedBeforeSql } from '../../pipeline/frontier-rules.js';
import { queryVariantsReason } from '../../pipeline/trap-guards.js';

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
  private readonly urls: UrlRows;
  private readonly countVariant: Statement<[string]>;
  private readonly revisitLinked: Statement<[number], { origin: string }>;
  private readonly writer: CaptureWriter;
  private readonly exchanges: PageExchanges;
  private readonly commitTx: Transaction<(outcomes: PageOutcome[]) => CommitResult[]>;

  private readonly variants: Statement<[string], { count: number }>;

  constructor(
    db: Database,
    private readonly path: string,
    private readonly runId: number,
    private readonly limits: SinkLimits = {},
  ) {
    this.variants = db.prepare('SELECT count FROM query_variants WHERE path = ?');
    // The confirmed page's links stand, so what they lead to is visited again in this crawl, as if parsed anew.
    const crawl = Math.trunc(limits.crawl ?? 1);
    this.revisitLinked = db.prepare(`
      UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL, crawl = ${crawl}
      WHERE id IN (SELECT CASE l.to_id WHEN 0 THEN (SELECT t.id FROM url t WHERE t.url = l.to_url) ELSE l.to_id END
                   FROM link l WHERE l.from_id = ? AND l.nofollow = 0 AND l.kind <> ${linkKindSql('canonical')})
        AND ${finishedBeforeSql('', String(crawl))}
      RETURNING origin`);
    // A URL found again is revised by the frontier's rules (src/pipeline/frontier-rules.ts).
    this.urls = new UrlRows(db, crawl);
    this.countVariant = db.prepare(
      'INSERT INTO query_variants (path, count) VALUES (?, 1) ON CONFLICT (path) DO UPDATE SET count = count + 1',
    );
    this.writer = new CaptureWriter(db);
    this.exchanges = new PageExchanges(this.urls, this.writer);
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
    if (outcome.response?.revalidated && this.writer.revalidated(from, this.runId, outcome.response)) {
      const revisited = this.revisitLinked.all(from);
      this.urls.finished(from, outcome.state, outcome.tries, undefined);
      return { newUrls: 0, revisitedOrigins: [...new Set(revisited.map((row) => row.origin))] };
    }
    // What the page fetched as it rendered comes first: those URLs are done, not new ones to fetch.
    if (outcome.exchanges?.length) {
      this.exchanges.write(
        { urlId: from, runId: this.runId, depth: outcome.claim.depth, crawl: this.limits.crawl ?? 1 },
        outcome.exchanges,
      );
    }
    let newUrls = 0;
    for (const found of outcome.discovered) {
      if (!found.known && !found.linkOnly) newUrls += this.addUrl(found, from);
    }
    const { response } = outcome;
    if (response) {
      const bodyId = this.writer.body(response.body, response);
      const fate = this.writer.capture(from, this.runId, bodyId, fetchedCapture(response), {
        found: outcome.discovered.length,
        new: newUrls,
      });
      // A capture older than the page (a clock set back) leaves the page its links and text.
      if (fate === 'page') {
        this.writer.replaceLinks(from, outcome.discovered);
        this.writer.pageText(from, outcome.claim.key, response);
      }
      if (outcome.screenshot) this.writer.screenshot(from, response.fetchedAt, outcome.screenshot);
      if (outcome.renderNotes?.length) this.writer.renderNotes(from, response.fetchedAt, outcome.renderNotes);
    } else {
      // A fetch that stored no response (it failed) leaves the capture stored before as the page, and its links with it.
      this.writer.addLinks(from, outcome.discovered);
    }
    this.urls.finished(from, outcome.state, outcome.tries, outcome.error);
    return { newUrls };
  }

  private addUrl(found: DiscoveredUrl, from: number): number {
    const skip = found.skip ?? this.tooManyVariants(found);
    const fetchUrl = found.url === found.key ? null : found.url;
    const state = skip ? 'skipped' : 'queued';
    const { depth, redirectHops, pathKey } = found;
    const row: FoundUrlRow = {
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
    if (pathKey !== undefined && this.urls.foundNew(row) > 0) {
      this.countVariant.run(pathKey);
      return 1;
    }
    return this.urls.found(row);
  }

  private tooManyVariants(found: DiscoveredUrl) {
    const { maxPerPath = 0 } = this.limits;
    if (!found.pathKey || maxPerPath <= 0) return undefined;
    const count = this.variants.get(found.pathKey)?.count ?? 0;
    if (count < maxPerPath) return undefined;
    return queryVariantsReason(maxPerPath, found.pathKey);
  }
}
