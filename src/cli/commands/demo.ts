import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { CrawliteError } from '../../crawlite-error.js';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import type { CommandContext } from './context.js';

export class NotADemoArchiveError extends CrawliteError {
  constructor(path: string) {
    super('NOT_DEMO_ARCHIVE', `${path} exists and was not made by the demo; pass another --db`);
  }
}

export function demoCommand(context: CommandContext): CommandModule {
  return {
    command: 'demo',
    describe: 'serve a bundled sample site on 127.0.0.1 and crawl it into demo.sqlite',
    builder: (yargs) =>
      withCrawlFlags(yargs)
        .option('db', { type: 'string', default: 'demo.sqlite', describe: 'archive file (replaced if an earlier demo made it)' })
        .example('$0 demo', 'crawl the sample site, then try the queries it prints'),
    handler: async (args) => {
      const [{ removeDemoArchive }, { startSampleSite }, { runCrawl }] = await Promise.all([
        import('../../storage/archive/index.js'),
        import('../demo/sample-site.js'),
        import('../run-crawl.js'),
      ]);
      const dbPath = String(args.db);
      if (existsSync(dbPath) && !removeDemoArchive(dbPath)) throw new NotADemoArchiveError(dbPath);
      const site = await startSampleSite();
      try {
        context.exitCode = await runCrawl(
          { dbPath, mode: 'create', roots: [site.url], given: givenOptions(args), verbosity: context.verbosity(args), logFile: args.log as string | undefined, marks: { demo: true } },
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
          `or open ${dbPath} in any SQLite client (sqlite3 ${dbPath} "select count(*) from pages").`,
          '',
        ].join('\n'),
      );
    },
  };
}
