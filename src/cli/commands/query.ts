import type { CommandModule } from 'yargs';
import { rowStream, ROW_FORMATS, type RowFormat, type RowStream } from '../format-rows.js';
import { runInterruptible } from '../interruptible-task.js';
import { milliseconds } from '../milliseconds-flag.js';
import type { CommandContext } from './context.js';

export function queryCommand(context: CommandContext): CommandModule {
  return {
    command: 'query <db> <sql>',
    describe: 'run one read-only SQL statement against an archive, streaming its rows',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .positional('sql', { type: 'string', describe: 'one SQL statement that only reads' })
        .option('format', { alias: 'f', choices: ROW_FORMATS, default: 'table' as RowFormat, describe: 'output format' })
        .option('timeout', {
          type: 'number',
          coerce: milliseconds('timeout'),
          defaultDescription: 'none',
          describe: 'time limit for the whole query in ms (like crawl --timeout); Ctrl-C stops it too',
        })
        .example('$0 query site.sqlite "select url, status from pages where status >= 400"', 'broken pages')
        .example('$0 query site.sqlite "select to_url, count(*) n from links group by 1 order by n desc limit 10"', 'most linked URLs')
        .example('$0 query site.sqlite "select url, state, error from urls where state = \'failed\'" -f csv', 'failures as CSV')
        .example(
          '$0 query site.sqlite "select url, title from pages" -f ndjson --timeout 60000 | head',
          'stream rows, give up after a minute',
        ),
    handler: async (args) => {
      const { queryArchive } = await import('../../library/query.js');
      const { io } = context;
      let output: RowStream | undefined;
      let readerGone = false;
      /** Writes, then waits while stdout is backed up; false once its reader went away. */
      const write = async (text: string) => {
        if (!text || io.stdout(text) !== false) return true;
        return io.drain();
      };
      // `| head` has all it wanted: not an error. Ctrl-C: one line, the usual exit code.
      await runInterruptible(
        context,
        async (task) => {
          const end = await queryArchive({
            db: String(args.db),
            sql: String(args.sql),
            ...(args.timeout !== undefined ? { timeoutMs: args.timeout as number } : {}),
            onColumns: (columns) => {
              output = rowStream(columns, args.format as RowFormat);
            },
            onRows: async (rows) => {
              if (await write(output!.rows(rows))) return;
              readerGone = true;
              task.abort();
            },
            signal: task.signal,
          });
          if (end === 'done' && output) await write(output.end());
        },
        { stopped: () => !readerGone, interrupted: () => 'crawlite: query interrupted\n' },
      );
    },
  };
}
