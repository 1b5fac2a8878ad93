import { catchError, map, mergeMap, Observable, of, race, retry, throwError, timer, type OperatorFunction } from 'rxjs';
import type { ClaimedUrl } from '../../storage/ports.js';
import { CrawliteError } from '../../crawlite-error.js';
import type { CrawlItem } from '../crawl-item.js';
import { CrawlStoppedError, RetryableStatusError } from '../fetch-errors.js';
import type { HttpResponse } from '../http/http-client.js';
import { isRetryableError, isRetryableStatus, parseRetryAfter, retryDelay } from '../retry-policy.js';

export type Fetch = (url: string, signal: AbortSignal) => Promise<HttpResponse>;

export interface RetrySettings {
  maxTries: number;
  retryDelayMs: number;
  random?: () => number;
}

/** One request as an Observable whose teardown aborts it. */
function request(fetch: Fetch, url: string, stop: AbortSignal): Observable<HttpResponse> {
  return new Observable<HttpResponse>((subscriber) => {
    // A listener removed on teardown, rather than AbortSignal.any, so the
    // crawl-long stop signal never accumulates one entry per request.
    const abort = new AbortController();
    const onStop = () => abort.abort();
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
    let settled = false;
    fetch(url, abort.signal).then(
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

function failure(claim: ClaimedUrl, attempts: number, latest: HttpResponse | undefined, error: unknown): CrawlItem {
  if (error instanceof CrawlStoppedError) return { claim, attempts, state: 'stopped', discovered: [] };
  const reason =
    error instanceof CrawliteError
      ? { code: error.code, message: error.message }
      : { code: 'error', message: error instanceof Error ? error.message : String(error) };
  const item: CrawlItem = { claim, attempts, state: 'failed', error: reason, discovered: [] };
  if (latest) item.response = latest;
  return item;
}

/**
 * Fetches each claimed URL, retrying network errors, timeouts, 429 and 5xx
 * up to `maxTries` attempts in all, with backoff that honours Retry-After.
 * Never errors: every outcome becomes a CrawlItem.
 */
export function fetchWithRetry(fetch: Fetch, settings: RetrySettings, stop: AbortSignal): OperatorFunction<ClaimedUrl, CrawlItem> {
  return mergeMap((claim) => {
    let attempts = 0;
    let latest: HttpResponse | undefined;
    return request(fetch, claim.url, stop).pipe(
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
          return race(timer(retryDelay(retryCount, settings.retryDelayMs, retryAfter, settings.random)), whenStopped(stop, claim.url));
        },
      }),
      map((response): CrawlItem => ({ claim, attempts, response, state: 'done', discovered: [] })),
      catchError((error: unknown) => of(failure(claim, attempts, latest, error))),
    );
  });
}
