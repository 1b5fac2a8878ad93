import type { CommandModule } from 'yargs';
import type { CommandContext } from './context.js';

export function workerCommand(context: CommandContext): CommandModule {
  return {
    command: 'worker [conn]',
    describe: 'crawl from a shared PostgreSQL frontier (crawlite frontier init) into a shard of its own, until the frontier is finished',
    builder: (yargs) =>
      yargs
        .positional('conn', { type: 'string', describe: 'PostgreSQL connection string; PGHOST, PGDATABASE etc. when absent' })
        .option('db', { type: 'string', demandOption: true, describe: "this worker's shard: an archive file of its own" })
        .option('concurrency', {
          alias: 'c',
          type: 'number',
          describe: 'requests in flight for this worker',
          defaultDescription: "the crawl's",
        })
        .option('lease', {
          type: 'number',
          describe: "ms a claimed URL stays this worker's without renewal; a dead worker's URLs are claimed again after it",
          default: 60_000,
        })
        .option('name', { type: 'string', describe: 'shown by frontier status', defaultDescription: 'host:pid' })
        .option('verbose', { type: 'boolean', describe: 'log every fetch' })
        .check((args) => {
          if (args.concurrency !== undefined && (!Number.isInteger(args.concurrency) || args.concurrency < 1))
            throw new Error('--concurrency must be a whole number of at least 1');
          if (!Number.isInteger(args.lease) || args.lease < 100) throw new Error('--lease must be a whole number of ms, at least 100');
          return true;
        })
        .example(
          '$0 worker postgres://crawl@db.lan/crawl --db shard-1.sqlite -c 16',
          'one worker; start as many as you like, each with its own --db',
        ),
    handler: async (args) => {
      const { runWorker } = await import('../run-worker.js');
      context.exitCode = await runWorker(
        {
          connection: args.conn as string | undefined,
          dbPath: String(args.db),
          ...(args.concurrency !== undefined ? { concurrency: Number(args.concurrency) } : {}),
          leaseMs: Number(args.lease),
          name: (args.name as string | undefined) ?? `${context.io.owner.host}:${context.io.owner.pid}`,
          verbosity: context.verbosity(args),
        },
        context.io,
      );
    },
  };
}
