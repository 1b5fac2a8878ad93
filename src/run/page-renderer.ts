import { createRenderer, resolveChromium } from '../browser/index.js';
import type { CrawlOptions } from '../pipeline/crawl-options.js';
import type { PageRenderer } from '../pipeline/renderer.js';

/**
 * Checks that the Chromium a --browser crawl (or the replay check of --qa) runs is there, before
 * anything is opened or written: a missing browser is one line (BrowserMissingError) and the archive is untouched.
 */
export function checkBrowser(options: Pick<Partial<CrawlOptions>, 'browser' | 'qa' | 'chromium'>): void {
  if (options.browser || options.qa) resolveChromium(options.chromium);
}

/** The crawl's browser with --browser, or none; the caller closes it once the crawl is over. */
export function openRenderer(options: CrawlOptions): PageRenderer | undefined {
  if (!options.browser) return undefined;
  return createRenderer({
    chromium: resolveChromium(options.chromium),
    userAgent: options.userAgent,
    maxBodyBytes: options.maxBodyBytes,
    allowWrites: options.browserWrites,
  });
}
