import { CrawliteError } from '../crawlite-error.js';

/** The replay's Chromium would not start, or quit during the run: the scores stored before stay. */
export class QaBrowserError extends CrawliteError {
  constructor(chromium: string, cause: unknown, what: 'would not start to replay the archive' | 'quit while replaying the archive') {
    const why = cause instanceof Error ? cause.message.split('\n', 1)[0]! : String(cause);
    const next =
      what === 'quit while replaying the archive'
        ? 'the scores stored stay; run qa again'
        : `check that it runs (${chromium} --headless --version)`;
    super('qa_browser_failed', `Chromium (${chromium}) ${what}: ${why}; ${next}`, { cause });
  }
}
