import { catchError, from, map, mergeMap, of, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { isHtml } from '../../html/index.js';
import { CrawlStoppedError } from '../fetch-errors.js';
import type { PageRenderer } from '../renderer.js';

/** Why a page was kept as served, unrendered. */
const renderFailed = (error: unknown) => ({
  code: 'render_failed',
  message: `the browser could not render the page, so it was archived as served: ${(error as Error).message ?? String(error)}`,
});

/**
 * Loads each fetched HTML page in the browser (crawl --browser), answered with the bytes the crawl
 * fetched. Other responses, failures and redirects go on as they are. A page the browser cannot
 * render is archived as served, with the reason on its row and in its report; a stop puts the page back in the queue.
 */
export function renderPage(
  renderer: PageRenderer,
  admits: (url: string) => boolean,
  signal: AbortSignal,
): OperatorFunction<CrawlItem, CrawlItem> {
  return mergeMap((item) => {
    const { response, claim } = item;
    if (!response || item.state !== 'done' || claim.kind !== 'page' || response.status < 200 || response.status > 299) return of(item);
    if (!isHtml(response.headers['content-type'] ?? null)) return of(item);
    return from(renderer.render({ url: claim.url, document: response, admits }, signal)).pipe(
      map((rendered): CrawlItem => ({ ...item, rendered })),
      catchError((error: unknown) => {
        if (error instanceof CrawlStoppedError || signal.aborted) return of<CrawlItem>({ ...item, state: 'stopped' });
        // Kept on the URL's row (error_code render_failed) beside its done state, so such pages can be found.
        return of<CrawlItem>({ ...item, error: renderFailed(error) });
      }),
    );
  });
}
