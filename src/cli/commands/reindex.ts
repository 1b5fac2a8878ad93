import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import { pagesProgress } from '../pages-progress.js';
import type { CommandContext } from './context.js';

/** A progress line per this many pages when stderr is not a terminal; a terminal gets every batch. */
const LOG_EVERY = 5000;

export function reindexCommand(context: CommandContext): CommandModule {
  return {
    command: 'reindex <db>',
    describe:
      'build the search index for pages stored without text (archives from before search, or crawled with --no-text), and again for pages whose text an older crawlite extracted',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .example('$0 reindex old.sqlite', 'make an older archive searchable; interrupted, run it again to go on'),
    handler: async (args) => {
      const { reindex } = await import('../../library/reindex.js');
      const { io } = context;
      const path = String(args.db);
      const quiet = context.verbosity(args) === 'quiet';
      const progress = pagesProgress(io, quiet, 'reindex', LOG_EVERY);
      const end = await runInterruptible(
        context,
        async ({ signal }) => {
          const result = await reindex({
            db: path,
            owner: io.owner,
            onWait: (message) => io.stderr(`${message}\n`),
            signal,
            onProgress: progress.onProgress,
          });
          progress.end(result.indexed);
          return result;
        },
        {
          stopped: (result) => result.stopped,
          interrupted: (result) =>
            `crawlite: reindex interrupted after ${result?.indexed} of ${result?.total} pages; run it again to go on\n`,
        },
      );
      if (end.interrupted || quiet) return;
      const { indexed, ms } = end.result;
      io.stdout(
        `indexed ${indexed} page${indexed === 1 ? '' : 's'} in ${(ms / 1000).toFixed(1)} s; every HTML page of ${path} is searchable\n`,
      );
    },
  };
}
