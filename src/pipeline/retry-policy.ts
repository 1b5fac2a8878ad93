import { MAX_RETRY_AFTER_MS } from './crawl-options.js';
import { FetchError } from './fetch-errors.js';

/** 429 and every 5xx are worth another try; other statuses are answers. */
export const isRetryableStatus = (status: number): boolean => status === 429 || (status >= 500 && status <= 599);

export const isRetryableError = (error: unknown): boolean => error instanceof FetchError && error.retryable;

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Delay before retry number `retry` (1 for the first retry): what the server
 * asked for, capped; else exponential backoff with jitter so that many URLs
 * failing together do not come back together.
 */
export function retryDelay(retry: number, baseMs: number, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const exponential = Math.min(baseMs * 2 ** (retry - 1), MAX_RETRY_AFTER_MS);
  return Math.round(exponential * (0.5 + random() / 2));
}
