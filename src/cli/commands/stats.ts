import type { CommandModule } from 'yargs';
import type { CommandContext } from './context.js';

export function statsCommand(context: CommandContext): CommandModule {
  return {
    command: 'stats <db>',
    describe: "print an archive's report: URLs by state, statuses, bytes, errors, pages and responses per second",
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' })
        .example('$0 stats site.sqlite', 'the end-of-run report, again')
        .example('$0 stats site.sqlite --json', 'the same, for scripts'),
    handler: async (args) => {
      const [{ archiveReport }, { formatReport, reportJson }] = await Promise.all([
        import('../../library/stats.js'),
        import('../format-report.js'),
      ]);
      const path = String(args.db);
      const report = archiveReport(path);
      context.io.stdout(`${args.json ? reportJson(path, report) : formatReport(path, report, 'archive')}\n`);
    },
  };
}
