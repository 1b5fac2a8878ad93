import { httpFetcher } from '../http/http-fetcher.js';
import { crawl, type Crawl } from '../pipeline/crawl.js';
import type { CrawlStop } from '../pipeline/crawl-stop.js';
import type { CrawlControls } from '../pipeline/crawl-controls.js';
import type { CrawlStateThread, LockedArchive } from '../storage/crawl-state/index.js';
import type { PageRenderer } from '../pipeline/renderer.js';
import { openRenderer } from './page-renderer.js';
import type { PreparedArchive } from './prepare-archive.js';
import type { RunSession } from './session.js';

export interface StartedCrawl {
  runId: number;
  roots: string[];
  running: Crawl;
  /** The crawl's browser (--browser): closed by the caller once the crawl is over. */
  renderer?: PageRenderer;
  /** The thread that claims and commits: closed by the caller once the crawl is over, before the archive. */
  state: CrawlStateThread;
}

/**
 * Records the run's start and builds the pipeline over the archive's frontier and a sink for this run (both on
 * a thread of their own, see CrawlStateThread), an HTTP client with the session's settings and, with --browser,
 * Chromium.
 */
export function startCrawl(
  archive: LockedArchive,
  prepared: PreparedArchive,
  stop: CrawlStop,
  session: RunSession | undefined,
  controls: CrawlControls,
): StartedCrawl {
  const { record, options } = prepared;
  const roots = prepared.seeds.map((seed) => seed.url);
  const runId = prepared.runId ?? record.startRun(options, new Date(), prepared.crawl);
  const limits = { maxPerPath: options.maxPerPath, maxDepth: options.maxDepth, crawl: prepared.crawl };
  // Until the thread is ready, the frontier the archive was prepared with answers here.
  const state = archive.stateThread({ runId, crawl: prepared.crawl, limits }, prepared.frontier);
  const renderer = openRenderer(options);
  const ports = {
    frontier: state.frontier,
    sink: state.sink,
    fetcher: httpFetcher(options, session?.build(roots)),
    ...(renderer ? { renderer: () => renderer } : {}),
  };
  return { runId, roots, running: crawl(ports, roots, options, stop, controls), state, ...(renderer ? { renderer } : {}) };
}
