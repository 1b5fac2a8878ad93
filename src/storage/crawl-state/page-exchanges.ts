import type { PageExchange } from '../../pipeline/ports.js';
import { fetchedCapture, isPageRequest, type CaptureWriter } from '../writer/capture-writer.js';
import type { ExchangeUrlRow, UrlRows } from '../writer/url-rows.js';

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
  constructor(
    private readonly urls: UrlRows,
    private readonly writer: CaptureWriter,
  ) {}

  write(page: ExchangePage, exchanges: readonly PageExchange[]): void {
    for (const exchange of exchanges) {
      const get = isPageRequest(exchange.response.wire?.requestMethod ?? null);
      const row: ExchangeUrlRow = {
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
      const id = get ? this.urls.exchangeFetched(row) : this.urls.exchangeOtherMethod(row);
      const bodyId = this.writer.body(exchange.response.body, exchange.response);
      const capture = {
        ...fetchedCapture(exchange.response),
        requestBody: exchange.requestBody ? Buffer.from(exchange.requestBody) : null,
      };
      this.writer.capture(id, page.runId, bodyId, capture, { found: 0, new: 0 });
    }
  }
}
