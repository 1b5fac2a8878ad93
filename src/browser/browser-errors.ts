import { CrawliteError } from '../crawlite-error.js';

/** No Chromium where one was looked for: the crawl cannot render pages. */
export class BrowserMissingError extends CrawliteError {
  constructor(readonly path: string) {
    super('browser_missing', `no Chromium at ${path}: install it (apt-get install chromium) or give its path with --chromium PATH`);
  }
}

/** Chromium would not start, or a page could not be rendered (the browser or the page crashed, the page stopped answering). */
export class RenderError extends CrawliteError {
  constructor(url: string, what: string, options?: { cause?: unknown }) {
    super('render_failed', `render ${url}: ${what}`, options);
  }
}
