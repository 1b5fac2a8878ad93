import { CrawliteError } from '../crawlite-error.js';

/** An export's output cannot be written where asked. */
export class ExportPathError extends CrawliteError {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('EXPORT_PATH', `${path}: ${reason}`, options);
  }
}
