import type { CommandModule } from 'yargs';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import type { CommandContext } from './context.js';

export function demoCommand(context: CommandContext): CommandModule {
  return {
    command: 'demo',
    describe: 'serve a bundled sample site on 127.0.0.1 and crawl it into demo.sqlite',
    builder: (yargs) =>
      withCrawlFlags(yargs)
        .option('db', { type: 'string', default: 'demo.sqlite', describe: 'archive file (replaced if an earlier demo made it)' })
        .example('$0 demo', 'crawl the sample site, then try the queries it prints'),
    handler: async (args) => {
      const [{ startDemo, DEMO_MARKS }, { runCrawl }] = await Promise.all([import('../../library/demo.js'), import('../run-crawl.js')]);
      const dbPath = String(args.db);
      const site = await startDemo(dbPath);
      try {
        context.exitCode = await runCrawl(
          {
            dbPath,
            kind: 'crawl',
            roots: [site.url],
            given: givenOptions(args),
            verbosity: context.verbosity(args),
            logFile: args.log as string | undefined,
            marks: DEMO_MARKS,
          },
          context.io,
        );
      } finally {
        await site.close();
      }
      if (context.verbosity(args) === 'quiet') return;
      context.io.stdout(
        [
          '',
          'Now try:',
          `  npx crawlite query ${dbPath} "select url, status, content_type from pages order by url"`,
          `  npx crawlite query ${dbPath} "select url, state, error from urls where state != 'done'"`,
          `  npx crawlite query ${dbPath} "select from_url, to_url, kind from links where kind = 'redirect'"`,
          `  npx crawlite stats ${dbPath}`,
          `  npx crawlite serve ${dbPath} --open          # browse, replay, run SQL in the browser`,
          `or open ${dbPath} in any SQLite client (sqlite3 ${dbPath} "select count(*) from pages").`,
          '',
        ].join('\n'),
      );
    },
  };
}
