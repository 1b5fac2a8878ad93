import type { HttpResponse } from './fetcher.js';
import type { ClaimedUrl, DiscoveredUrl, PageExchange, PageText, Reason } from './ports.js';
import type { RenderCap, RenderedPage } from './renderer.js';

/** What a parsed page says of itself, kept beside its response. */
export interface PageFacts {
  /** The encoding the body was decoded with (sniffed for HTML). */
  charset: string | null;
  title?: string;
  canonical?: string;
  /** Directives of <meta name="robots">, e.g. ["noindex", "nofollow"]. */
  robots?: string[];
  /** An HTML page's words for the search index (absent with --no-text, and for anything else). */
  text?: PageText;
  /** Link references past --max-links-per-page (or a sitemap's --max-pages) that were not read. */
  linksDropped?: number;
}

/** One claimed URL on its way through the pipeline. */
export interface CrawlItem {
  claim: ClaimedUrl;
  /** Requests made for it in this run. */
  attempts: number;
  /** The latest complete HTTP response, if any came. */
  response?: HttpResponse;
  /**
   * `pending`: not fetched yet. `skipped`: robots.txt disallows it, so it is
   * never requested. `stopped`: the crawl was stopped before it finished; it
   * goes back to the queue.
   */
  state: 'pending' | 'done' | 'failed' | 'skipped' | 'stopped';
  error?: Reason;
  page?: PageFacts;
  /** The body's SHA-256, when a parse thread computed it along the way. */
  bodySha256?: Buffer;
  /** The body's SHA-1, computed with the SHA-256. */
  bodySha1?: Buffer;
  /** The body as a compact archive stores it, when a parse thread compressed it. */
  bodyStored?: Buffer;
  discovered: DiscoveredUrl[];
  /** The page as a browser rendered it (crawl --browser); its html is dropped once parsed. */
  rendered?: RenderedPage;
  /** What the rendered page fetched, keyed for the archive. */
  exchanges?: PageExchange[];
}

/** What became of one claimed URL: the seed crawler's per-fetch statistics. */
export interface FetchReport {
  url: string;
  state: Exclude<CrawlItem['state'], 'pending'>;
  tries: number;
  status?: number;
  contentType?: string;
  location?: string;
  size?: number;
  elapsedMs?: number;
  linksFound: number;
  linksNew: number;
  error?: Reason;
  /** The bounds the page's render ran into (crawl --browser): it was captured as it was then. */
  renderNotes?: RenderCap[];
}
