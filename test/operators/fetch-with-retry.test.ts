import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { CrawlStoppedError, NetworkError, BodyTooLargeError } from '../../src/pipeline/fetch-errors.js';
import type { HttpResponse } from '../../src/pipeline/fetcher.js';
import { fetchWithRetry, type Fetch } from '../../src/pipeline/operators/fetch-with-retry.js';
import type { ClaimedUrl } from '../../src/pipeline/ports.js';

// The retry logic on its own, with fetch functions that answer from a script; the HTTP side is covered
// against real servers in test/retries.test.ts.
const pending = (): CrawlItem => ({
  claim: {
    id: 1,
    url: 'http://site/x',
    key: 'http://site/x',
    origin: 'http://site',
    kind: 'page',
    depth: 0,
    redirectHops: 0,
    tries: 0,
    lease: { token: 'test', expiresAt: Infinity },
  },
  attempts: 0,
  state: 'pending',
  discovered: [],
});
const answer = (status: number, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers,
  body: Buffer.from('b'),
  fetchedAt: '',
  elapsedMs: 1,
});

function scripted(steps: (HttpResponse | Error)[]): Fetch & { attempts: number[] } {
  const attempts: number[] = [];
  const fetch = (async (_claim: ClaimedUrl, _signal: AbortSignal, attempt: number) => {
    attempts.push(attempt);
    const step = steps[Math.min(attempts.length - 1, steps.length - 1)]!;
    if (step instanceof Error) throw step;
    return step;
  }) as Fetch & { attempts: number[] };
  fetch.attempts = attempts;
  return fetch;
}

const run = (fetch: Fetch, settings = {}, stop = new AbortController().signal) =>
  lastValueFrom(of(pending()).pipe(fetchWithRetry(fetch, { maxTries: 4, retryDelayMs: 1, ...settings }, stop)));

describe('fetchWithRetry', () => {
  it('retries 5xx and network errors until an answer, numbering the attempts', async () => {
    const fetch = scripted([answer(503), new NetworkError('ECONNRESET', 'http://site/x', 'reset'), answer(200)]);
    const out = await run(fetch);
    expect(out).toMatchObject({ state: 'done', attempts: 3, response: { status: 200 } });
    expect(fetch.attempts).toEqual([1, 2, 3]);
  });

  it('keeps the latest response when every try fails', async () => {
    const out = await run(scripted([answer(500)]));
    expect(out).toMatchObject({ state: 'failed', attempts: 4, response: { status: 500 }, error: { code: 'http_500' } });
  });

  it('does not retry what retrying cannot change', async () => {
    const fetch = scripted([new BodyTooLargeError('http://site/x', 10)]);
    expect(await run(fetch)).toMatchObject({ state: 'failed', attempts: 1, error: { code: 'body_too_large' } });
    expect(await run(scripted([answer(404)]))).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('tells the host scheduler when a 429 asks for a pause', async () => {
    const pauses: [number, number][] = [];
    await run(scripted([answer(429, { 'retry-after': '0' }), answer(200)]), {
      onRetryAfter: (_url: string, status: number, ms: number) => pauses.push([status, ms]),
    });
    expect(pauses).toEqual([[429, 0]]);
  });

  it('ends a backoff wait at once when the crawl is stopped', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const started = Date.now();
    const out = await run(scripted([answer(503)]), { retryDelayMs: 60_000 }, stop.signal);
    expect(out.state).toBe('stopped');
    // Far short of the 60 s backoff, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('treats an aborted request as stopped, not failed', async () => {
    expect((await run(scripted([new CrawlStoppedError('http://site/x')]))).state).toBe('stopped');
  });
});
