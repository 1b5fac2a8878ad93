import type { CommandModule } from 'yargs';
import { givenOptions, withCrawlFlags } from '../crawl-flags.js';
import type { CommandContext } from './context.js';

const CONNECTION = {
  type: 'string',
  describe: 'PostgreSQL connection string (postgres://user@host/db); PGHOST, PGDATABASE etc. when absent',
} as const;

export function frontierCommand(context: CommandContext): CommandModule {
  return {
    command: 'frontier <action>',
    describe: 'a frontier in PostgreSQL shared by many workers (crawlite worker): init, status',
    builder: (yargs) =>
      yargs
        .command({
          command: 'init [conn]',
          describe: 'create the frontier schema, store the roots and crawl options, queue the roots',
          builder: (sub) =>
            withCrawlFlags(sub)
              .positional('conn', CONNECTION)
              .option('roots', {
                type: 'string',
                array: true,
                demandOption: true,
                describe: 'start URLs; a root without a scheme gets http://',
              })
              .example(
                '$0 frontier init postgres://crawl@db.lan/crawl --roots https://example.com --max-depth 5',
                'a shared crawl of one site',
              ),
          handler: async (args) => {
            const { initFrontierCommand } = await import('../run-frontier.js');
            context.exitCode = await initFrontierCommand(
              {
                connection: args.conn as string | undefined,
                roots: (args.roots as unknown[]).map(String),
                given: givenOptions(args),
                quiet: Boolean(args.quiet),
              },
              context.io,
            );
          },
        })
        .command({
          command: 'status [conn]',
          describe: 'URLs by state, per origin, and the workers seen in the last minute',
          builder: (sub) =>
            sub
              .positional('conn', CONNECTION)
              .option('hosts', { type: 'number', default: 20, describe: 'origins listed at most, most work left first; 0 lists every one' })
              .option('json', { type: 'boolean', default: false, describe: 'print JSON (every origin)' })
              .check((args) => {
                if (!Number.isInteger(args.hosts) || args.hosts < 0)
                  throw new Error(`--hosts must be a whole number, 0 or more, not ${String(args.hosts)}`);
                return true;
              })
              .example('$0 frontier status postgres://crawl@db.lan/crawl', 'how far the crawl is')
              .example('$0 frontier status postgres://crawl@db.lan/crawl --json', 'the same, for scripts'),
          handler: async (args) => {
            const { frontierStatusCommand } = await import('../run-frontier.js');
            context.exitCode = await frontierStatusCommand(
              args.conn as string | undefined,
              { hosts: args.hosts, json: Boolean(args.json) },
              context.io,
            );
          },
        })
        .demandCommand(1, 'name a frontier action: init or status'),
    handler: () => undefined,
  };
}
