import { CrawliteError } from '../crawlite-error.js';

/** The replay's Chromium would not start: nothing was checked. */
export class QaBrowserError extends CrawliteError {
  constructor(chromium: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message.split('\n', 1)[0]! : String(cause);
    super('qa_browser_failed', `Chromium (${chromium}) would not start to replay the archive: ${why}; check that it runs (${chromium} --headless --version)`, { cause });
  }
}
