import { describe, expect, it } from 'vitest';
import { isRetryableStatus, parseRetryAfter, retryDelay } from '../../src/pipeline/retry-policy.js';

describe('retry policy', () => {
  it('retries 429 and every 5xx, nothing else', () => {
    expect([429, 500, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 301, 400, 404, 428, 600].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('honours Retry-After, capped at 60 s', () => {
    expect(retryDelay(1, 1000, 2000)).toBe(2000);
    expect(retryDelay(1, 1000, 3_600_000)).toBe(60_000);
  });

  it('backs off exponentially with jitter between half and all of the step', () => {
    expect([1, 2, 3].map((retry) => retryDelay(retry, 100, undefined, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((retry) => retryDelay(retry, 100, undefined, () => 1))).toEqual([100, 200, 400]);
  });
});
