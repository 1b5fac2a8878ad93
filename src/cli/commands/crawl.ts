import type { CommandModule } from 'yargs';
import { withCrawlFlags, givenOptions } from '../crawl-flags.js';
import { resolveRoots } from '../../library/options.js';
import { sessionOptions, withSessionFlags } from '../session-flags.js';
import type { CommandContext } from './context.js';

/**
 * `<host>.sqlite` in the current directory, for a crawl started without --db; a
 * port other than the scheme's default is part of the name (`127.0.0.1_8080.sqlite`),
 * so two sites on one host never share an archive. `_` cannot occur in a host name.
 */
export function defaultDbPath(firstRoot: string): string {
  const url = new URL(firstRoot);
  // An IPv6 host comes bracketed and full of colons, which some file systems refuse; a name starting
  // with "-" would read as a flag to the next command.
  const host = url.hostname.startsWith('[') ? `ipv6-${url.hostname.slice(1, -1).replaceAll(':', '-')}` : url.hostname;
  return `${host}${url.port ? `_${url.port}` : ''}.sqlite`;
}

export function crawlCommand(context: CommandContext): CommandModule {
  return {
    command: 'crawl <roots..>',
    describe: 'crawl one or more sites into an archive (continues an existing one)',
    builder: (yargs) =>
      withSessionFlags(withCrawlFlags(yargs))
        .positional('roots', {
          type: 'string',
          array: true,
          default: undefined,
          describe: 'start URLs; a root without a scheme gets http://',
        })
        .option('db', { type: 'string', describe: 'archive file to write', defaultDescription: '<host>.sqlite, or <host>_<port>.sqlite' })
        .example('$0 crawl https://example.com --db example.sqlite', 'archive a site')
        .example('$0 crawl example.com -c 4 --exclude "\\?sort=" --db example.sqlite', 'politer, skipping sorted listings')
        .example('$0 crawl https://a.example.org https://b.example.org --lenient --db ab.sqlite', 'two roots and their subdomains'),
    handler: async (args) => {
      // The crawl's modules (rxjs, undici, htmlparser2, SQLite) load only when a crawl runs, not for --help or another command.
      const { runCrawl } = await import('../run-crawl.js');
      const roots = (args.roots as string[]).map(String);
      const dbPath = (args.db as string | undefined) ?? defaultDbPath(resolveRoots(roots)[0]!.url);
      context.exitCode = await runCrawl(
        {
          dbPath,
          kind: 'crawl',
          roots,
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
