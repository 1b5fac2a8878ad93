import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpFetcher } from '../../src/http/http-fetcher.js';
import { crawl } from '../../src/pipeline/crawl.js';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../../src/pipeline/crawl-options.js';
import { CrawlStop } from '../../src/pipeline/crawl-stop.js';
import type { Fetcher, FetcherFactory } from '../../src/pipeline/fetcher.js';
import { resolveRoots } from '../../src/run/resolve-roots.js';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import { tempDir } from '../support/archive.js';
import { html, routes, startServer, text, type TestServer } from '../support/test-server.js';

// The pipeline does HTTP only through the fetcher it is given: robots.txt, pages and the pacing hook alike.

const tmp = tempDir();
let server: TestServer;

beforeAll(async () => {
  server = await startServer(
    routes({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/': html('<a href="/a">a</a> <a href="/private">p</a>'),
      '/a': html('a'),
    }),
  );
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('crawl() fetches through the fetcher of its ports, tells it when it opens, and closes it at the end', async () => {
  const path = tmp.path('port.sqlite');
  const options: CrawlOptions = { ...DEFAULT_OPTIONS, userAgent: 'test' };
  const db = openArchive(path, 'create');
  const log = { opened: 0, closed: 0, urls: [] as string[], sent: [] as string[] };
  // The real HTTP client, wrapped to see what the pipeline asks of it.
  const real = httpFetcher(options);
  const fetcher: FetcherFactory = (hooks) => {
    log.opened += 1;
    const client = real({ onSent: (origin) => (log.sent.push(origin), hooks.onSent(origin)) });
    const seen: Fetcher = {
      get: (url, signal) => (log.urls.push(new URL(url).pathname), client.get(url, signal)),
      close: () => ((log.closed += 1), client.close()),
    };
    return seen;
  };
  try {
    const record = new CrawlRecord(db);
    const seeds = resolveRoots([server.url]);
    const roots = seeds.map((seed) => seed.url);
    record.save(roots, {});
    const runId = record.startRun(options, new Date());
    const frontier = new SqliteFrontier(db);
    frontier.addRoots(seeds);
    const sink = new SqlitePageSink(db, path, runId, { maxPerPath: options.maxPerPath, maxDepth: options.maxDepth });
    await lastValueFrom(crawl({ frontier, sink, fetcher }, roots, options, new CrawlStop()).reports);
  } finally {
    closeArchive(db);
  }
  expect(log.urls.sort()).toEqual(['/', '/a', '/robots.txt']);
  expect(server.totalHits()).toBe(3);
  expect(log.sent).toEqual([server.url.slice(0, -1), server.url.slice(0, -1), server.url.slice(0, -1)]);
  expect(log).toMatchObject({ opened: 1, closed: 1 });
});

it("tells a request's own onSent once its head went out, and not at all when it never does", async () => {
  const client = httpFetcher({ ...DEFAULT_OPTIONS, userAgent: 'test', timeoutMs: 2_000 })({ onSent: () => undefined });
  try {
    let sent = 0;
    const answer = await client.get(`${server.url}a`, new AbortController().signal, undefined, () => (sent += 1));
    expect(answer.status).toBe(200);
    expect(sent).toBe(1);

    // A port nothing listens on: the connection is refused, no head goes out.
    const closed = await startServer(routes({ '/a': html('never') }));
    const refusedUrl = `${closed.url}a`;
    await closed.close();
    let refusedSent = 0;
    await expect(client.get(refusedUrl, new AbortController().signal, undefined, () => (refusedSent += 1))).rejects.toThrow();
    expect(refusedSent).toBe(0);
  } finally {
    await client.close();
  }
});
