import { from, map, mergeMap, of, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { charsetOf } from '../../html/index.js';
import type { ParsePool } from '../parse/parse-pool.js';
import { needsParse, parseResponse, type ParseResult, type ParseSettings } from '../parse/parse-response.js';

export type { ParseSettings } from '../parse/parse-response.js';

/** The item with what its response says: facts, found URLs, or the failure that makes it unreadable. */
function withResult(item: CrawlItem, result: ParseResult): CrawlItem {
  if (result.error) return { ...item, state: 'failed', error: result.error };
  const parsed: CrawlItem = { ...item, discovered: item.discovered.length ? [...item.discovered, ...result.found] : result.found };
  if (result.page) parsed.page = result.page;
  return parsed;
}

/**
 * Reads what a successful response links to: an HTML page's links,
 * requisites, refresh and canonical, a stylesheet's url()s, a sitemap's
 * entries (see parseResponse). Other content is stored as is. With a pool the
 * reading runs on its threads and each item goes on when its answer comes
 * back; without one it runs here.
 */
export function parsePage(settings: ParseSettings, pool?: ParsePool): OperatorFunction<CrawlItem, CrawlItem> {
  return mergeMap((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done' || response.status < 200 || response.status > 299) return of(item);
    const contentType = response.headers['content-type'] ?? null;
    if (!needsParse(claim, contentType)) return of({ ...item, page: { charset: charsetOf(contentType) } });
    // The rendered DOM (crawl --browser) is read with the bytes, then dropped: only its findings are kept.
    const rendered = item.rendered && { ...item.rendered, html: '' };
    const job = {
      claim,
      contentType,
      body: response.body,
      ...(item.rendered ? { rendered: item.rendered.html, ...(item.rendered.fragmentRoutes ? { fragmentRoutes: true } : {}) } : {}),
    };
    if (!pool) return of(withResult({ ...item, rendered }, parseResponse(job, settings)));
    return from(pool.parse(job, settings)).pipe(
      // The body went to the thread and came back: the item keeps the returned bytes.
      map(({ result, body, sha256, sha1, stored }) =>
        withResult(
          {
            ...item,
            rendered,
            response: { ...response, body },
            bodySha256: sha256,
            bodySha1: sha1,
            ...(stored ? { bodyStored: stored } : {}),
          },
          result,
        ),
      ),
    );
  });
}
