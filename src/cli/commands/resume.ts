import type { CommandModule } from 'yargs';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import { sessionOptions, withSessionFlags } from '../session-flags.js';
import type { CommandContext } from './context.js';

export function resumeCommand(context: CommandContext): CommandModule {
  return {
    command: 'resume <db>',
    describe:
      'continue a crawl after Ctrl-C, a crash or kill -9, with the roots and options stored in the archive (options given replace the stored ones)',
    builder: (yargs) =>
      withSessionFlags(withCrawlFlags(yargs, 'resume'))
        .positional('db', { type: 'string', describe: 'archive file' })
        .example('$0 resume example.sqlite', 'continue where the crawl stopped')
        .example('$0 resume example.sqlite --max-pages 20000', 'go on past the first limit (stored: later resumes keep it)'),
    handler: async (args) => {
      const { runCrawl } = await import('../run-crawl.js');
      context.exitCode = await runCrawl(
        {
          dbPath: String(args.db),
          kind: 'resume',
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
