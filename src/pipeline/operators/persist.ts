import { from, map, mergeMap, type OperatorFunction } from 'rxjs';
import type { DiscoveredUrl, FrontierPort, PageOutcome, StoredResponse } from '../ports.js';
import type { CommitQueue } from '../commit-queue.js';
import type { CrawlItem, FetchReport } from '../crawl-item.js';
import { charsetOf } from '../../html/index.js';
import type { HttpResponse } from '../fetcher.js';

/** What is kept of the item's response: the response, what its page says, its digests if a parse thread made them. */
function stored(response: HttpResponse, { page, bodySha256, bodySha1, bodyStored, claim }: CrawlItem): StoredResponse {
  const contentType = response.headers['content-type'] ?? null;
  const kept: StoredResponse = {
    status: response.status,
    headers: response.headers,
    contentType,
    charset: page ? page.charset : charsetOf(contentType),
    location: response.location ?? null,
    body: response.body,
    fetchedAt: response.fetchedAt,
    elapsedMs: response.elapsedMs,
    title: page?.title ?? null,
    canonical: page?.canonical ?? null,
    robots: page?.robots?.join(',') ?? null,
    linksDropped: page?.linksDropped ?? 0,
  };
  if (page?.text) kept.text = page.text;
  if (bodySha256) kept.sha256 = bodySha256;
  if (bodySha1) kept.sha1 = bodySha1;
  if (bodyStored) kept.stored = bodyStored;
  if (response.wire) kept.wire = response.wire;
  // A 304 confirms the capture the conditional request named (an unasked one never gets here).
  if (response.status === 304 && claim.validators) kept.revalidated = true;
  return kept;
}

/**
 * A 304 answers a conditional request (RFC 9110 §15.4.5). To a request that sent no validator it
 * confirms nothing and holds no page, so it must not replace the capture an earlier crawl stored.
 */
const UNEXPECTED_304 = {
  code: 'unexpected_304',
  message:
    'the server answered 304 Not Modified to a request without If-None-Match or If-Modified-Since; nothing was stored, an earlier capture is kept',
};
const isUnasked304 = (item: CrawlItem) => item.response?.status === 304 && !item.claim.validators;

/** The frontier gave the URL to another claim while this one was in flight: its outcome is not this worker's to store. */
const LEASE_LOST = {
  code: 'lease_lost',
  message: 'the claim on this URL expired and the frontier gave it out again; this fetch was not stored',
};

function report(item: CrawlItem, tries: number, linksNew: number): FetchReport {
  const { response } = item;
  // A URL given back before it was fetched is reported like one a stop interrupted: it is queued again, not failed.
  const state = item.state === 'pending' ? 'stopped' : item.state;
  const fetched: FetchReport = { url: item.claim.url, state, tries, linksFound: item.discovered.length, linksNew };
  if (response) {
    fetched.status = response.status;
    fetched.size = response.body.byteLength;
    fetched.elapsedMs = response.elapsedMs;
    if (response.headers['content-type']) fetched.contentType = response.headers['content-type'];
    if (response.location) fetched.location = response.location;
  }
  if (item.rendered?.capped.length) fetched.renderNotes = item.rendered.capped;
  if (item.error) fetched.error = item.error;
  return fetched;
}

/**
 * Commits a page, its links and its final state in one transaction; a
 * stopped URL goes back to the queue instead. Tells
 * `onCommitted` what was queued, for the seen cache and the scheduler (and
 * the origins a confirmed page's stored links queued again). A
 * claim whose lease was lost is reported `stopped` (lease_lost) and nothing
 * of it is stored.
 */
export function persist(
  queue: CommitQueue,
  frontier: FrontierPort,
  onCommitted: (queued: DiscoveredUrl[], revisitedOrigins: readonly string[]) => void,
): OperatorFunction<CrawlItem, FetchReport> {
  return mergeMap((fetched) => {
    if (fetched.state === 'stopped' || fetched.state === 'pending') {
      return from(frontier.release(fetched.claim)).pipe(map(() => report(fetched, fetched.claim.tries, 0)));
    }
    // The unasked 304 stays on the item for the fetch report (its status), not for the archive.
    const unasked = isUnasked304(fetched);
    const item = unasked ? { ...fetched, state: 'failed' as const, error: UNEXPECTED_304, discovered: [] } : fetched;
    const tries = item.claim.tries + item.attempts;
    const outcome: PageOutcome = { claim: item.claim, state: unasked ? 'failed' : fetched.state, tries, discovered: item.discovered };
    if (item.response && !unasked) outcome.response = stored(item.response, item);
    if (item.error) outcome.error = item.error;
    if (item.exchanges?.length && !unasked) outcome.exchanges = item.exchanges;
    if (item.rendered?.screenshot && outcome.response) outcome.screenshot = item.rendered.screenshot;
    if (item.rendered?.capped.length && outcome.response) outcome.renderNotes = item.rendered.capped;
    // Told before the commit: the sink may take the body's bytes (PageSinkPort).
    const told = report(item, tries, 0);
    return from(queue.commit(outcome)).pipe(
      map(({ newUrls, leaseLost, revisitedOrigins = [] }) => {
        if (leaseLost) return { ...told, tries: item.claim.tries, state: 'stopped' as const, error: LEASE_LOST };
        onCommitted(
          item.discovered.filter((found) => !found.skip && !found.linkOnly),
          revisitedOrigins,
        );
        return { ...told, linksNew: newUrls };
      }),
    );
  });
}
