import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('retries.sqlite');
/** Long enough that no answer of this in-process server misses it on a busy machine; four tries of /hang wait it out. */
const TIMEOUT_MS = 1000;
/** When /polite's 429 was answered (ms since the epoch): before the crawler heard of it. */
let answered429At = 0;
const LINKED = ['/flaky', '/down', '/polite', '/reset', '/reset-once', '/slow-once', '/hang', '/missing', '/cut'];

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    const hit = server.hitCount(path);
    const page = html(`<p>${path}</p>`);
    const ok = () => res.writeHead(200, page.headers).end(page.body);
    switch (path) {
      case '/':
        return void res.writeHead(200, page.headers).end(LINKED.map((link) => `<a href="${link}">${link}</a>`).join(''));
      case '/flaky':
        return hit <= 2 ? void res.writeHead(503).end('busy') : ok();
      case '/down':
        return void res.writeHead(500).end('broken');
      case '/polite':
        if (hit > 1) return ok();
        answered429At = Date.now();
        return void res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      case '/reset':
        return void res.socket?.destroy();
      case '/reset-once':
        return hit === 1 ? void res.socket?.destroy() : ok();
      case '/slow-once':
        return hit === 1 ? undefined : ok(); // the first request never gets an answer
      case '/hang':
        return undefined;
      case '/cut':
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
        res.write('<p>only part of the body');
        return void setTimeout(() => res.socket?.destroy(), 20);
      default:
        return void res.writeHead(404).end('no');
    }
  });
  const result = await runCli(['crawl', server.url, '--db', db, '-q', '--retry-delay', '10', '--timeout', String(TIMEOUT_MS)]);
  expect(result.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const url = (path: string) =>
  readArchive<{ state: string; tries: number; error: string | null }>(
    db,
    'SELECT state, tries, error FROM urls WHERE url = ?',
    abs(server, path),
  )[0];
const page = (path: string) => readArchive<{ status: number }>(db, 'SELECT status FROM pages WHERE url = ?', abs(server, path))[0];

describe('retries', () => {
  it('retries 5xx until the page comes, counting the tries', () => {
    expect(server.hitCount('/flaky')).toBe(3);
    expect(url('/flaky')).toMatchObject({ state: 'done', tries: 3, error: null });
    expect(page('/flaky')).toEqual({ status: 200 });
  });

  it('gives up after --max-tries attempts, keeping the latest response', () => {
    expect(server.hitCount('/down')).toBe(4);
    expect(url('/down')).toEqual({ state: 'failed', tries: 4, error: expect.stringContaining('HTTP 500') });
    expect(page('/down')).toEqual({ status: 500 });
  });

  it('waits as long as Retry-After asks before retrying a 429', () => {
    expect(server.hitCount('/polite')).toBe(2);
    // The retry's send as the crawler stored it, against when the server answered the 429 (the crawler heard of it later).
    const [retry] = readArchive<{ started_at: string }>(db, 'SELECT started_at FROM pages WHERE url = ?', abs(server, '/polite'));
    expect(Date.parse(retry!.started_at) - answered429At).toBeGreaterThanOrEqual(1000 - 1);
    expect(url('/polite')).toMatchObject({ state: 'done', tries: 2 });
  });

  it('retries network errors and records the last one when all tries fail', () => {
    expect(server.hitCount('/reset')).toBe(4);
    expect(url('/reset')).toMatchObject({ state: 'failed', tries: 4, error: expect.stringMatching(/GET .*\/reset/) });
    expect(page('/reset')).toBeUndefined();
    expect(url('/reset-once')).toMatchObject({ state: 'done', tries: 2 });
  });

  it('times out a request that never answers, retries it, and goes on', () => {
    expect(url('/slow-once')).toMatchObject({ state: 'done', tries: 2 });
    expect(url('/hang')).toEqual({
      state: 'failed',
      tries: 4,
      error: expect.stringContaining(`no complete response within ${TIMEOUT_MS} ms`),
    });
  });

  it('does not store a body cut off mid-way: it is a failed try', () => {
    expect(server.hitCount('/cut')).toBe(4);
    expect(url('/cut')).toMatchObject({ state: 'failed', tries: 4 });
    expect(page('/cut')).toBeUndefined();
  });

  it('does not retry a 404: it is an answer', () => {
    expect(server.hitCount('/missing')).toBe(1);
    expect(url('/missing')).toMatchObject({ state: 'done', tries: 1 });
    expect(page('/missing')).toEqual({ status: 404 });
  });
});
