import { CrawliteError } from '../crawlite-error.js';

/** A mistake in the command line itself: unknown flag or command, bad value, missing argument. */
export class UsageError extends CrawliteError {
  constructor(message: string) {
    super('USAGE', message);
  }
}
