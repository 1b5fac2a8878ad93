import { catchError, map, mergeMap, Observable, of, race, retry, throwError, timer, type OperatorFunction } from 'rxjs';
import { CrawliteError } from '../../crawlite-error.js';
import type { CrawlItem } from '../crawl-item.js';
import { MAX_RETRY_AFTER_MS } from '../crawl-options.js';
import { CrawlStoppedError, RetryableStatusError } from '../fetch-errors.js';
import type { HttpResponse } from '../fetcher.js';
import type { ClaimedUrl } from '../ports.js';
import { isRetryableError, isRetryableStatus, parseRetryAfter, retryDelay } from '../retry-policy.js';

/**
 * One request for a claim (its URL; its validators, when it has them, make it conditional);
 * `attempt` is 1 for the first try of a URL, so retries can be paced per host.
 */
export type Fetch = (claim: ClaimedUrl, signal: AbortSignal, attempt: number) => Promise<HttpResponse>;

export interface RetrySettings {
  maxTries: number;
  retryDelayMs: number;
  random?: () => number;
  /** Told when a server answers 429 or 503 with Retry-After, so its host can pause. */
  onRetryAfter?: (url: string, status: number, ms: number) => void;
}

/** One request as an Observable whose teardown aborts it. */
function request(fetch: Fetch, claim: ClaimedUrl, stop: AbortSignal, attempt: () => number): Observable<HttpResponse> {
  return new Observable<HttpResponse>((subscriber) => {
    // A listener removed on teardown, rather than AbortSignal.any, so the
    // crawl-long stop signal never accumulates one entry per request.
    const abort = new AbortController();
    const onStop = () => abort.abort();
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
    let settled = false;
    fetch(claim, abort.signal, attempt()).then(
      (response) => {
        settled = true;
        subscriber.next(response);
        subscriber.complete();
      },
      (error: unknown) => {
        settled = true;
        subscriber.error(error);
      },
    );
    return () => {
      stop.removeEventListener('abort', onStop);
      // Aborting a finished request would only cost an AbortError with a stack.
      if (!settled) abort.abort();
    };
  });
}

/** Errors at once when the crawl is stopped, so a backoff wait never delays a stop. */
function whenStopped(stop: AbortSignal, url: string): Observable<never> {
  return new Observable<never>((subscriber) => {
    const onAbort = () => subscriber.error(new CrawlStoppedError(url));
    if (stop.aborted) onAbort();
    else stop.addEventListener('abort', onAbort, { once: true });
    return () => stop.removeEventListener('abort', onAbort);
  });
}

function failure(item: CrawlItem, attempts: number, latest: HttpResponse | undefined, error: unknown): CrawlItem {
  const { claim } = item;
  if (error instanceof CrawlStoppedError) return { claim, attempts, state: 'stopped', discovered: [] };
  const reason =
    error instanceof CrawliteError
      ? { code: error.code, message: error.message }
      : { code: 'error', message: error instanceof Error ? error.message : String(error) };
  const failed: CrawlItem = { claim, attempts, state: 'failed', error: reason, discovered: [] };
  if (latest) failed.response = latest;
  return failed;
}

/**
 * Fetches each claimed URL, retrying network errors, timeouts, 429 and 5xx
 * up to `maxTries` attempts in all, with backoff that honours Retry-After.
 * Never errors: every outcome becomes a CrawlItem.
 */
export function fetchWithRetry(fetch: Fetch, settings: RetrySettings, stop: AbortSignal): OperatorFunction<CrawlItem, CrawlItem> {
  return mergeMap((item) => {
    if (item.state !== 'pending') return of(item);
    const { claim } = item;
    let attempts = 0;
    let latest: HttpResponse | undefined;
    return request(fetch, claim, stop, () => attempts + 1).pipe(
      map((response) => {
        attempts += 1;
        latest = response;
        if (isRetryableStatus(response.status)) {
          throw new RetryableStatusError(claim.url, response.status, response.headers['retry-after']);
        }
        return response;
      }),
      catchError((error: unknown) => {
        if (!(error instanceof RetryableStatusError)) attempts += 1;
        return throwError(() => error);
      }),
      retry({
        count: settings.maxTries - 1,
        delay: (error: unknown, retryCount) => {
          if (!isRetryableError(error) || stop.aborted) return throwError(() => error);
          const retryAfter = error instanceof RetryableStatusError ? parseRetryAfter(error.retryAfter, Date.now()) : undefined;
          if (retryAfter !== undefined && error instanceof RetryableStatusError) {
            settings.onRetryAfter?.(claim.url, error.status, Math.min(retryAfter, MAX_RETRY_AFTER_MS));
          }
          return race(timer(retryDelay(retryCount, settings.retryDelayMs, retryAfter, settings.random)), whenStopped(stop, claim.url));
        },
      }),
      map((response): CrawlItem => ({ claim, attempts, response, state: 'done', discovered: [] })),
      catchError((error: unknown) => of(failure(item, attempts, latest, error))),
    );
  });
}
