import { CrawliteError } from '../../crawlite-error.js';

/** The archive has no tables to steer a crawl with: a crawl of this version has not opened it yet. */
export class ControlUnavailableError extends CrawliteError {
  constructor(path: string) {
    super(
      'CONTROL_UNAVAILABLE',
      `${path} was last crawled by an older crawlite: crawlite resume ${path} with this version, then control it`,
    );
  }
}
