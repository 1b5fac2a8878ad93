import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchReport } from '../src/pipeline/crawl-item.js';
import { crawl } from '../src/pipeline/crawl.js';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../src/pipeline/crawl-options.js';
import { CrawlStop } from '../src/pipeline/crawl-stop.js';
import { normalizeUrl, type NormalizedUrl } from '../src/url/normalize-url.js';
import { httpFetcher } from '../src/http/http-fetcher.js';
import { MemoryFrontier } from './support/memory-frontier.js';
import { serverPool } from './support/test-server.js';
import { sleep } from './support/wait.js';

const servers = serverPool();
afterAll(() => servers.closeAll());

/**
 * Long enough that renewal at half a lease keeps up on a loaded machine (the suite runs files in parallel,
 * and this process's event loop may be late by hundreds of ms): the crawl and the frontier share it.
 */
const LEASE_MS = 1_000;
/** Two and a half leases: a request outlives the lease it started under, and its renewals. */
const REPLY_MS = 2_500;

const options: CrawlOptions = { ...DEFAULT_OPTIONS, userAgent: 'test', robots: false, concurrency: 4 };
const html = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

/** Crawls over the in-memory frontier; stopped after 5 s, should leases keep running out and pages be fetched again and again. */
async function crawlWith(frontier: MemoryFrontier, root: string): Promise<FetchReport[]> {
  frontier.add(normalizeUrl(root) as NormalizedUrl);
  const stop = new CrawlStop();
  // Two rounds of REPLY_MS on a quiet machine; the rest is room for a loaded one.
  const bound = setTimeout(() => stop.abort(), 30_000);
  try {
    return await lastValueFrom(
      crawl({ frontier, sink: frontier, fetcher: httpFetcher(options) }, [root], options, stop).reports.pipe(toArray()),
    );
  } finally {
    clearTimeout(bound);
  }
}

describe('claims are leases', () => {
  it('renews the leases of requests that outlast them, so every page commits', async () => {
    const server = await servers.serve(async (_req, res, path) => {
      await sleep(REPLY_MS);
      res.setHeader('content-type', 'text/html');
      res.end(path === '/' ? html('<a href="/a">a</a><a href="/b">b</a>') : html('leaf'));
    });
    const frontier = new MemoryFrontier(LEASE_MS);
    const reports = await crawlWith(frontier, server.url);

    expect(reports.map((report) => [new URL(report.url).pathname, report.state]).sort()).toEqual([
      ['/', 'done'],
      ['/a', 'done'],
      ['/b', 'done'],
    ]);
    expect(frontier.refused).toEqual([]);
    // Each request lasted two and a half leases: each claim was renewed, more than once.
    expect(frontier.renewed).toBeGreaterThanOrEqual(3 * 2);
    // Renewals go in batches, not one call per claim.
    expect(frontier.renewCalls).toBeLessThan(frontier.renewed);
  });

  it('does not commit a page whose lease the frontier took back, reports it, and goes on', async () => {
    let frontier: MemoryFrontier | undefined;
    const server = await servers.serve(async (req, res, path) => {
      const first = server.hitCount(path) === 1;
      // The frontier gives the URL to someone else while this request is on the wire.
      if (path === '/slow' && first) frontier!.revoke(new URL(req.url!, server.url).href);
      await sleep(50);
      res.setHeader('content-type', 'text/html');
      if (path === '/') res.end(html('<a href="/slow">slow</a><a href="/fine">fine</a>'));
      else if (path === '/slow' && first) res.end(html('<a href="/found-by-lost-claim">x</a>'));
      else res.end(html('leaf'));
    });
    frontier = new MemoryFrontier(60_000);
    const reports = await crawlWith(frontier, server.url);

    const slowKey = new URL('/slow', server.url).href;
    const lost = reports.filter((report) => report.error?.code === 'lease_lost');
    expect(lost.map((report) => [report.url, report.state])).toEqual([[slowKey, 'stopped']]);
    expect(frontier.refused).toEqual([slowKey]);
    // Nothing of the lost claim was stored: not its links.
    expect(frontier.stateOf(new URL('/found-by-lost-claim', server.url).href)).toBeUndefined();
    // The rest of the crawl went on.
    expect(frontier.stateOf(new URL('/fine', server.url).href)).toBe('done');
    expect(frontier.stateOf(server.url)).toBe('done');
  });
});
