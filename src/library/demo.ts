import { existsSync } from 'node:fs';
import { CrawliteError } from '../crawlite-error.js';

export class NotADemoArchiveError extends CrawliteError {
  constructor(path: string) {
    super('NOT_DEMO_ARCHIVE', `${path} exists and was not made by the demo; pass another --db`);
  }
}

export interface DemoSite {
  /** The sample site's home page on 127.0.0.1: the root to crawl. */
  url: string;
  close(): Promise<void>;
}

/**
 * Gets `crawlite demo` ready: removes the archive an earlier demo made at `db` (one the demo did not make is
 * refused with NotADemoArchiveError), and serves the bundled sample site on 127.0.0.1. Crawl it with the
 * mark `{ demo: true }`, so the next demo may replace the archive.
 */
export async function startDemo(db: string): Promise<DemoSite> {
  const [{ removeDemoArchive }, { startSampleSite }] = await Promise.all([import('../storage/archive/index.js'), import('./demo-site.js')]);
  if (existsSync(db) && !removeDemoArchive(db)) throw new NotADemoArchiveError(db);
  return startSampleSite();
}

/** What the demo's archive is marked with, so a later demo knows it may replace it. */
export const DEMO_MARKS: Record<string, unknown> = { demo: true };
