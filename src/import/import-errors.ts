import { CrawliteError } from '../crawlite-error.js';

/** A WARC file named on the command line that cannot be read at all. */
export class WarcFileError extends CrawliteError {
  constructor(path: string, reason: string) {
    super('WARC_FILE', `${path}: ${reason}; nothing was imported`);
  }
}
