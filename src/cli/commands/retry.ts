import type { CommandModule } from 'yargs';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import { sessionOptions, withSessionFlags } from '../session-flags.js';
import type { CommandContext } from './context.js';

export function retryCommand(context: CommandContext): CommandModule {
  return {
    command: 'retry <db>',
    describe: 'queue the failed URLs of an archive again, with fresh tries, and continue the crawl',
    builder: (yargs) =>
      withSessionFlags(withCrawlFlags(yargs, 'resume'))
        .positional('db', { type: 'string', describe: 'archive file' })
        .example('$0 retry example.sqlite', 'fetch again what failed (timeouts, 5xx, network errors)')
        .example('$0 retry example.sqlite --max-tries 8 --timeout 60000', 'more patient this time'),
    handler: async (args) => {
      const { runCrawl } = await import('../run-crawl.js');
      context.exitCode = await runCrawl(
        {
          dbPath: String(args.db),
          kind: 'retry',
          roots: [],
          given: givenOptions(args),
          verbosity: context.verbosity(args),
          logFile: args.log as string | undefined,
          session: sessionOptions(args),
        },
        context.io,
      );
    },
  };
}
