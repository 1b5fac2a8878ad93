import { defer, finalize, of, type Observable } from 'rxjs';
import type { FrontierPort, PageSinkPort } from '../storage/ports.js';
import type { CrawlOptions } from './crawl-options.js';
import type { FetchReport } from './crawl-item.js';
import type { CrawlStop } from './crawl-stop.js';
import { HttpClient } from './http/http-client.js';
import { claimFrontier } from './operators/claim-frontier.js';
import { fetchWithRetry } from './operators/fetch-with-retry.js';
import { followRedirects } from './operators/follow-redirects.js';
import { inScope } from './operators/in-scope.js';
import { parseLinks } from './operators/parse-links.js';
import { persist } from './operators/persist.js';
import { SeenCache, seen } from './operators/seen.js';
import { compilePatterns } from './scope.js';

export interface CrawlPorts {
  frontier: FrontierPort;
  sink: PageSinkPort;
}

/** Recently committed URLs remembered to skip their insert; a fixed size, so memory stays flat. */
const SEEN_CACHE_SIZE = 50_000;

/**
 * The crawl, in order: claim a queued URL when a slot is free, fetch it with
 * retries, turn a redirect into a discovered URL, parse links, judge scope,
 * drop duplicates, and commit. Emits one report per claimed URL.
 */
export function crawl(ports: CrawlPorts, roots: string[], options: CrawlOptions, stop: CrawlStop): Observable<FetchReport> {
  return defer(() => {
    const client = new HttpClient({
      connections: options.concurrency,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      userAgent: options.userAgent,
    });
    const cache = new SeenCache(SEEN_CACHE_SIZE);
    const rules = { roots: roots.map((root) => new URL(root)), lenient: options.lenient, exclude: compilePatterns(options.exclude, '--exclude') };
    const processOne = (claim: Parameters<Parameters<typeof claimFrontier>[3]>[0]) =>
      of(claim).pipe(
        fetchWithRetry((url, signal) => client.get(url, signal), options, stop.signal),
        followRedirects(options.maxRedirects),
        parseLinks(),
        inScope(rules),
        seen(cache),
        persist(ports.sink, ports.frontier, (urls) => urls.forEach((url) => cache.add(url))),
      );
    return claimFrontier(ports.frontier, options.concurrency, stop, processOne).pipe(finalize(() => void client.close()));
  });
}
