import type { CommandModule } from 'yargs';
import type { CommandContext } from './context.js';

const ACTIONS = ['pause', 'resume', 'stop', 'set', 'exclude', 'include', 'status'] as const;

export function controlCommand(context: CommandContext): CommandModule {
  return {
    command: 'control <db> <action> [pattern]',
    describe:
      'steer the crawl running on an archive (or the workers of a postgres:// frontier) from another terminal: pause, resume, stop, set its pace, exclude or include URLs, status',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file a crawl runs on, or a postgres:// frontier its workers share' })
        .positional('action', { type: 'string', choices: ACTIONS, describe: 'what to ask of the crawl' })
        .positional('pattern', { type: 'string', describe: 'exclude, include: a regular expression matched against URLs' })
        .option('concurrency', { alias: 'c', type: 'number', describe: 'set: requests in flight at most' })
        .option('per-host', { type: 'number', describe: 'set: requests in flight at most on one host' })
        .option('delay', { type: 'number', describe: 'set: minimum gap in ms between request starts on one host' })
        .option('min-free-disk', {
          type: 'number',
          describe: "set: pause when free space on the archive's disk falls under this many bytes (0: never)",
        })
        .option('wait', { type: 'boolean', default: true, describe: 'wait for the crawl to apply the request (--no-wait: only append it)' })
        .option('wait-ms', { type: 'number', default: 10_000, describe: 'how long to wait for the crawl to apply it' })
        .option('json', { type: 'boolean', default: false, describe: 'status: print JSON' })
        .example('$0 control example.sqlite pause', 'requests in flight finish, nothing new starts')
        .example('$0 control example.sqlite set --concurrency 2 --delay 1000', 'slow the crawl down while it runs')
        .example("$0 control example.sqlite exclude '[?&]id='", 'skip queued URLs with an id parameter, and those found from now on')
        .example('$0 control example.sqlite status', 'how the crawl stands')
        .example('$0 control postgres://crawl@db.lan/crawl pause', 'every worker of a shared frontier pauses'),
    handler: async (args) => {
      const { runControl } = await import('./control-run.js');
      context.exitCode = await runControl(
        {
          db: String(args.db),
          action: args.action as (typeof ACTIONS)[number],
          pattern: args.pattern as string | undefined,
          settings: {
            concurrency: args.concurrency as number | undefined,
            perHost: args.perHost as number | undefined,
            delayMs: args.delay as number | undefined,
            minFreeDisk: args.minFreeDisk as number | undefined,
          },
          wait: args.wait !== false,
          waitMs: Number(args.waitMs),
          json: Boolean(args.json),
        },
        context.io,
      );
    },
  };
}
