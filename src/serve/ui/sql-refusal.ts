import { CrawliteError } from '../../crawlite-error.js';

/**
 * What the SQL page tells the user, and its status, for a query it did not run to the end:
 * a statement refused or failing (400), one stopped at its time limit, refused while others
 * run, or whose process died (503). Undefined for anything else.
 */
export function sqlRefusal(error: unknown, timeoutMs: number): { status: number; message: string } | undefined {
  if (!(error instanceof CrawliteError)) return undefined;
  const limit = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  switch (error.code) {
    case 'QUERY_REFUSED':
      return { status: 400, message: error.message };
    case 'QUERY_TIMEOUT':
      return { status: 503, message: `The query was stopped after ${limit}, its time limit: narrow it, or run it with crawlite query.` };
    case 'SEARCH_BUSY':
      return { status: 503, message: 'Too many queries at once: try again in a moment.' };
    case 'QUERY_WORKER':
      return { status: 503, message: error.message };
    default:
      return undefined;
  }
}
