import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import type { CommandContext } from './context.js';

/** A progress line per this many URLs when stderr is not a terminal; a terminal gets every batch. */
const LOG_EVERY = 20000;

export function mergeCommand(context: CommandContext): CommandModule {
  return {
    command: 'merge <shards..>',
    describe: 'combine archives (shards of one crawl, or separate crawls) into one, as if crawled at once',
    builder: (yargs) =>
      yargs
        .positional('shards', { type: 'string', array: true, describe: 'archive files to merge' })
        .option('db', { type: 'string', demandOption: true, describe: 'the output archive: created, or added to if it exists' })
        // Shard URLs per transaction; small values make tests of interruption practical.
        .option('batch', { type: 'number', hidden: true })
        .option('pause-ms', { type: 'number', hidden: true })
        .example('$0 merge shard-*.sqlite --db site.sqlite', "one archive from the workers' shards; interrupted, run it again to go on"),
    handler: async (args) => {
      const [{ mergeShards }, { archiveReport }, { formatReport }, { UsageError }] = await Promise.all([
        import('../../library/merge.js'),
        import('../../library/stats.js'),
        import('../format-report.js'),
        import('../usage-error.js'),
      ]);
      const { io } = context;
      const output = String(args.db);
      if (output === '' || output === ':memory:') throw new UsageError('--db must name a file');
      const batch = args.batch === undefined ? undefined : Number(args.batch);
      if (batch !== undefined && !(Number.isInteger(batch) && batch >= 1)) throw new UsageError('--batch must be a positive integer');
      const quiet = context.verbosity(args) === 'quiet';
      const say = (text: string) => {
        if (!quiet) io.stderr(text);
      };
      let logged = 0;
      let checking: string | undefined;
      const end = await runInterruptible(
        context,
        ({ signal }) =>
          mergeShards({
            shards: (args.shards as string[]).map(String),
            db: output,
            owner: io.owner,
            ...(batch === undefined ? {} : { batchSize: batch }),
            ...(args.pauseMs === undefined ? {} : { pauseMs: Number(args.pauseMs) }),
            signal,
            onNotice: (message) => say(`${message}\n`),
            onCheck: (event) => {
              if (event.path === checking) return;
              checking = event.path;
              say(`merge: ${event.path}: checking its ${event.bodies} bodies\n`);
            },
            onProgress: (event) => {
              if (event.type === 'shard-skipped') say(`merge: ${event.path}: already merged, skipped\n`);
              if (event.type === 'shard-start') {
                logged = 0;
                say(`merge: ${event.path}: ${event.urls} URLs${event.from > 0 ? `, going on after URL id ${event.from}` : ''}\n`);
              }
              if (event.type === 'batch' && io.isTTY) say(`\rmerge: ${event.urlsDone} URLs, ${event.pages} pages merged`);
              if (event.type === 'batch' && !io.isTTY && event.urlsDone - logged >= LOG_EVERY) {
                logged = event.urlsDone;
                say(`merge: ${event.urlsDone} URLs, ${event.pages} pages merged\n`);
              }
              if (event.type === 'shard-end')
                say(`${io.isTTY ? '\n' : ''}merge: ${event.path}: ${event.pages} pages merged in ${(event.ms / 1000).toFixed(1)} s\n`);
            },
          }),
        {
          stopped: (result) => result.stopped,
          interrupted: () => `${io.isTTY ? '\n' : ''}crawlite: merge interrupted; run the same command again to go on\n`,
        },
      );
      if (end.interrupted || quiet) return;
      io.stdout(`${formatReport(output, archiveReport(output), 'archive')}\n`);
    },
  };
}
