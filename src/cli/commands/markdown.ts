import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import { pagesProgress } from '../pages-progress.js';
import type { CommandContext } from './context.js';

/** A progress line per this many pages when stderr is not a terminal; a terminal gets every batch. */
const LOG_EVERY = 1000;

export function markdownCommand(context: CommandContext): CommandModule {
  return {
    command: 'markdown <db>',
    describe: "store each HTML page's main content as Markdown (the page_markdown view), for an archive crawled or imported without it",
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .example('$0 markdown site.sqlite', 'make the Markdown of every page; interrupted, run it again to go on'),
    handler: async (args) => {
      const { markdown } = await import('../../library/markdown.js');
      const { io } = context;
      const path = String(args.db);
      const quiet = context.verbosity(args) === 'quiet';
      const progress = pagesProgress(io, quiet, 'markdown', LOG_EVERY);
      const end = await runInterruptible(
        context,
        async ({ signal }) => {
          const result = await markdown({
            db: path,
            owner: io.owner,
            onWait: (message) => io.stderr(`${message}\n`),
            signal,
            onProgress: progress.onProgress,
          });
          progress.end(result.converted);
          return result;
        },
        {
          stopped: (result) => result.stopped,
          interrupted: (result) =>
            `crawlite: markdown interrupted after ${result?.converted} of ${result?.total} pages; run it again to go on\n`,
        },
      );
      if (end.interrupted || quiet) return;
      const { converted, ms } = end.result;
      io.stdout(
        `converted ${converted} page${converted === 1 ? '' : 's'} to Markdown in ${(ms / 1000).toFixed(1)} s; every HTML page of ${path} has its Markdown in page_markdown\n`,
      );
    },
  };
}
