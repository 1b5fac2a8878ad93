import type { CommandModule } from 'yargs';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import { sessionOptions, withSessionFlags } from '../session-flags.js';
import type { CommandContext } from './context.js';

export function recrawlCommand(context: CommandContext): CommandModule {
  return {
    command: 'recrawl <db>',
    describe:
      'crawl a finished archive again (the next crawl), with its roots and stored options; every capture is kept, unchanged pages are asked for with If-None-Match / If-Modified-Since',
    builder: (yargs) =>
      withSessionFlags(withCrawlFlags(yargs, 'resume'))
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('only-linked', {
          type: 'boolean',
          default: false,
          describe: 'queue only the roots; visit again only what this crawl finds linked (pages no longer linked are not fetched)',
        })
        .example('$0 recrawl example.sqlite', 'fetch every URL of the archive again')
        .example('$0 recrawl example.sqlite --only-linked', 'follow the links from the roots again')
        .example('$0 query example.sqlite "SELECT change, count(*) FROM changes GROUP BY change"', 'what changed since the crawl before'),
    handler: async (args) => {
      const { runCrawl } = await import('../run-crawl.js');
      context.exitCode = await runCrawl(
        {
          dbPath: String(args.db),
          kind: 'recrawl',
          roots: [],
          given: givenOptions(args),
          verbosity: context.verbosity(args),
          logFile: args.log as string | undefined,
          onlyLinked: Boolean(args['only-linked']),
          session: sessionOptions(args),
        },
        context.io,
      );
    },
  };
}
