import { map, type OperatorFunction } from 'rxjs';
import type { FrontierPort, PageOutcome, PageSinkPort, StoredResponse } from '../../storage/ports.js';
import type { CrawlItem, FetchReport } from '../crawl-item.js';
import { charsetOf } from '../html/decode-text.js';
import type { HttpResponse } from '../http/http-client.js';

function stored(response: HttpResponse): StoredResponse {
  const contentType = response.headers['content-type'] ?? null;
  return {
    status: response.status,
    headers: response.headers,
    contentType,
    charset: charsetOf(contentType),
    location: response.headers.location ?? null,
    body: response.body,
    fetchedAt: response.fetchedAt,
    elapsedMs: response.elapsedMs,
  };
}

function report(item: CrawlItem, tries: number, linksNew: number): FetchReport {
  const { response } = item;
  const fetched: FetchReport = { url: item.claim.url, state: item.state, tries, linksFound: item.discovered.length, linksNew };
  if (response) {
    fetched.status = response.status;
    fetched.size = response.body.byteLength;
    fetched.elapsedMs = response.elapsedMs;
    if (response.headers['content-type']) fetched.contentType = response.headers['content-type'];
    if (response.headers.location) fetched.location = response.headers.location;
  }
  if (item.error) fetched.error = item.error;
  return fetched;
}

/**
 * Commits a page, its links and its final state in one transaction before
 * the slot is freed; a stopped URL goes back to the queue instead.
 */
export function persist(sink: PageSinkPort, frontier: FrontierPort, onCommitted: (urls: string[]) => void): OperatorFunction<CrawlItem, FetchReport> {
  return map((item) => {
    const tries = item.claim.tries + item.attempts;
    if (item.state === 'stopped') {
      frontier.release(item.claim.id);
      return report(item, item.claim.tries, 0);
    }
    const outcome: PageOutcome = { claim: item.claim, state: item.state, tries, discovered: item.discovered };
    if (item.response) outcome.response = stored(item.response);
    if (item.error) outcome.error = item.error;
    const { newUrls } = sink.commit(outcome);
    onCommitted(item.discovered.map((found) => found.url));
    return report(item, tries, newUrls);
  });
}
