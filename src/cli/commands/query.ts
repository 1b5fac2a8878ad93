import type { CommandModule } from 'yargs';
import { openArchive } from '../../storage/open-archive.js';
import { runReadOnlyQuery } from '../../storage/read-only-query.js';
import { formatRows, ROW_FORMATS, type RowFormat } from '../format-rows.js';
import type { CommandContext } from './context.js';

export function queryCommand(context: CommandContext): CommandModule {
  return {
    command: 'query <db> <sql>',
    describe: 'run one read-only SQL statement against an archive',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .positional('sql', { type: 'string', describe: 'one SQL statement that only reads' })
        .option('format', { alias: 'f', choices: ROW_FORMATS, default: 'table' as RowFormat, describe: 'output format' })
        .example('$0 query site.sqlite "select url, status from pages where status >= 400"', 'broken pages')
        .example('$0 query site.sqlite "select to_url, count(*) n from links group by 1 order by n desc limit 10"', 'most linked URLs')
        .example('$0 query site.sqlite "select url, state, error from urls where state = \'failed\'" -f csv', 'failures as CSV'),
    handler: (args) => {
      const db = openArchive(String(args.db), 'readonly');
      try {
        const result = runReadOnlyQuery(db, String(args.sql));
        context.io.stdout(formatRows(result, args.format as RowFormat));
      } finally {
        db.close();
      }
    },
  };
}
