import { CrawliteError } from '../../crawlite-error.js';

/** A WACZ (or other ZIP) named on the command line that is refused whole: damaged, hostile, or holding no WARC. */
export class WaczFileError extends CrawliteError {
  constructor(path: string, reason: string) {
    super('WACZ_FILE', `${path}: ${reason}; nothing was imported`);
  }
}
