import { CrawliteError } from '../crawlite-error.js';

/**
 * Errors of one request. `retryable` says what the crawler does with them:
 * try again, or record the URL as failed and go on. None stops the crawl.
 */
export abstract class FetchError extends CrawliteError {
  abstract readonly retryable: boolean;

  constructor(code: string, url: string, what: string, options?: { cause?: unknown }) {
    super(code, `GET ${url}: ${what}`, options);
  }
}

/** Refused, reset, cut off, DNS: the connection failed before a whole response came. */
export class NetworkError extends FetchError {
  readonly retryable = true;
}

export class RequestTimeoutError extends FetchError {
  readonly retryable = true;
  constructor(url: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('timeout', url, `no complete response within ${timeoutMs} ms`, options);
  }
}

/** Content-Encoding that could not be undone (corrupt gzip, unknown coding). */
export class ContentDecodeError extends FetchError {
  readonly retryable = true;
}

export class BodyTooLargeError extends FetchError {
  readonly retryable = false;
  constructor(url: string, limit: number) {
    super('body_too_large', url, `body larger than --max-body ${limit} bytes`);
  }
}

/** A response whose header block is longer than a crawl reads: the same server would send it again. */
export class HeadersTooLargeError extends FetchError {
  readonly retryable = false;
  constructor(url: string, limit: number, options?: { cause?: unknown }) {
    super('headers_too_large', url, `response headers longer than ${limit} bytes`, options);
  }
}

/** A complete response the server asked us to retry (429, 5xx). It is stored if the last try ends the same way. */
export class RetryableStatusError extends FetchError {
  readonly retryable = true;
  declare readonly retryAfter: string | undefined;

  constructor(
    url: string,
    readonly status: number,
    retryAfter: string | undefined,
  ) {
    super(`http_${status}`, url, `HTTP ${status}`);
    // Non-enumerable, so logging the error never dumps headers.
    Object.defineProperty(this, 'retryAfter', { value: retryAfter, enumerable: false });
  }
}

/** The crawl is stopping: the URL goes back to the queue, it did not fail. */
export class CrawlStoppedError extends FetchError {
  readonly retryable = false;
  constructor(url: string) {
    super('stopped', url, 'the crawl was stopped');
  }
}
