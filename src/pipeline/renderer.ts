import type { HttpResponse } from './fetcher.js';
import type { Reason, RenderCap, Screenshot } from './ports.js';

/**
 * The crawl's browser port: a page the crawl fetched is loaded in a browser, which is answered
 * with the fetched document (the site sees the document once) and fetches the rest itself.
 * Everything else the page fetched comes back as exchanges, committed with the page.
 */

/** One exchange a rendered page made, as the browser saw it (never the document itself). */
export interface BrowserExchange {
  /** The URL requested, absolute. */
  url: string;
  /** What the browser fetched it as: 'Stylesheet', 'Script', 'Image', 'Font', 'XHR', 'Fetch', 'Document' (a frame), 'Media', 'Other'. */
  resourceType: string;
  method: string;
  /** What a request other than GET sent (a POST's body), when it sent one. */
  requestBody?: Uint8Array;
  /** The response: headers as received, body exactly as the browser received it (after Content-Encoding). */
  response: HttpResponse;
}

/** A page to render. */
export interface RenderJob {
  /** The document's URL (after the redirects the crawl followed). */
  url: string;
  /** The document as the crawl fetched it: the browser is answered with it and never requests it itself. */
  document: HttpResponse;
  /**
   * Whether the page may fetch a URL (the crawl's rules for requisites). A request refused fails in the
   * page as blocked by the client, and is listed in `blocked`. The renderer enforces it below the page
   * too, on every connection the browser opens.
   */
  admits(url: string): boolean;
}

/** A request a rendered page was refused, with why when the crawl's scope alone would not tell it. */
export interface BlockedRequest {
  url: string;
  /** Absent: scope says why (out_of_scope, excluded). */
  reason?: Reason;
}

export type { RenderCap } from './ports.js';

export interface RenderedPage {
  /** The DOM once scripts ran, serialised as HTML: read for links and text, never stored as the body. */
  html: string;
  exchanges: BrowserExchange[];
  /** What the page asked for and was refused, each URL once: recorded as skipped. */
  blocked: BlockedRequest[];
  /** Where the page's script tried to take its top frame: refused, the page is kept as it was, the URL recorded as a link. */
  navigations?: string[];
  /** What the page looked like once loaded (the viewport). */
  screenshot?: Screenshot;
  capped: RenderCap[];
  /**
   * The page's script shows other content at another fragment of its URL (found by going to one of its
   * in-page links): its in-page links are hash routes, pages of their own.
   */
  fragmentRoutes?: boolean;
}

export interface PageRenderer {
  /** Rejects with CrawlStoppedError once `signal` aborts; with a RenderError when the page cannot be rendered. */
  render(job: RenderJob, signal: AbortSignal): Promise<RenderedPage>;
  /** Closes the browser; no browser process outlives it. */
  close(): Promise<void>;
}

/** Opens the crawl's renderer when the crawl starts; it is closed when the crawl ends. */
export type RendererFactory = () => PageRenderer;
