import type { Database, Statement } from 'better-sqlite3';
import type { PageExchange } from '../../pipeline/ports.js';
import { fetchedCapture, isPageRequest, type CaptureWriter } from '../writer/capture-writer.js';

/** Where the page is and what its run is: the rows an exchange of it is written beside. */
export interface ExchangePage {
  urlId: number;
  runId: number;
  depth: number;
  crawl: number;
}

/**
 * What a page fetched as it rendered in a browser, written in the page's transaction: each resource
 * a URL of its own (a requisite one level deeper, unless the archive knows it already), `done` with
 * its capture, so the crawl does not fetch it again; a request other than GET is kept as a capture
 * only (`skipped` not_get where nothing else answered its URL), as import keeps one.
 */
export class PageExchanges {
  private readonly fetched: Statement<Record<string, unknown>, { id: number }>;
  private readonly otherMethod: Statement<Record<string, unknown>, { id: number }>;

  constructor(
    db: Database,
    private readonly writer: CaptureWriter,
  ) {
    const insert = `INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, crawl)
      VALUES (@url, @fetchUrl, @origin, 'requisite', @state, @depth, 0, @code, @message, @from, @crawl)`;
    // A URL queued, skipped or failed is done now; one held by a fetch in flight keeps its state (that fetch commits it).
    this.fetched = db.prepare(`${insert}
      ON CONFLICT (url) DO UPDATE SET state = iif(url.state = 'fetching', url.state, 'done'),
        error_code = iif(url.state = 'fetching', url.error_code, NULL), error = iif(url.state = 'fetching', url.error, NULL),
        depth = min(url.depth, excluded.depth), crawl = max(url.crawl, excluded.crawl)
      RETURNING id`);
    this.otherMethod = db.prepare(`${insert} ON CONFLICT (url) DO UPDATE SET url = url.url RETURNING id`);
  }

  write(page: ExchangePage, exchanges: readonly PageExchange[]): void {
    for (const exchange of exchanges) {
      const get = isPageRequest(exchange.response.wire?.requestMethod ?? null);
      const row = {
        url: exchange.key,
        fetchUrl: exchange.url === exchange.key ? null : exchange.url,
        origin: exchange.origin,
        state: get ? 'done' : 'skipped',
        depth: page.depth + 1,
        code: get ? null : 'not_get',
        message: get ? null : 'the page sent a request other than GET to this URL (kept in captures); no GET of it was archived',
        from: page.urlId,
        crawl: page.crawl,
      };
      const { id } = (get ? this.fetched : this.otherMethod).get(row)!;
      const bodyId = this.writer.body(exchange.response.body, exchange.response);
      const capture = {
        ...fetchedCapture(exchange.response),
        requestBody: exchange.requestBody ? Buffer.from(exchange.requestBody) : null,
      };
      this.writer.capture(id, page.runId, bodyId, capture, { found: 0, new: 0 });
    }
  }
}
