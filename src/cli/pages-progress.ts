import type { CliIo } from './io.js';

/**
 * A pass over an archive's pages (reindex, markdown) told on stderr: every batch on a terminal, on one line
 * rewritten; elsewhere a line per `every` pages and the last, so a log stays short.
 */
export function pagesProgress(io: CliIo, quiet: boolean, label: string, every: number) {
  let logged = 0;
  return {
    onProgress({ done, total }: { done: number; total: number }): void {
      if (quiet || (!io.isTTY && done - logged < every && done < total)) return;
      logged = done;
      io.stderr(`${io.isTTY ? '\r' : ''}${label}: ${done} of ${total} pages${io.isTTY ? '' : '\n'}`);
    },
    /** Ends a terminal's progress line, once one was written. */
    end(count: number): void {
      if (io.isTTY && !quiet && count > 0) io.stderr('\n');
    },
  };
}
