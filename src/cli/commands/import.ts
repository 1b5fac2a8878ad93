import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

/** Exit code when the import finished but some input was damaged (wget, too, has a code of its own per kind of trouble). */
export const EXIT_DAMAGED_INPUT = 2;

/** A progress line at most every this many records read. */
const PROGRESS_EVERY_RECORDS = 1000;

export function importCommand(context: CommandContext): CommandModule {
  return {
    command: 'import <warcs..>',
    describe: 'import WARC and WACZ files (wget, Heritrix, grab-site, Browsertrix, ReplayWeb.page, crawlite export) into an archive',
    builder: (yargs) =>
      yargs
        .positional('warcs', { type: 'string', array: true, describe: 'WARC files (.warc, .warc.gz) and WACZ files (.wacz)' })
        .option('db', { type: 'string', demandOption: true, describe: 'archive file (created if missing)' })
        .option('max-body', {
          type: 'number',
          default: 104857600,
          describe: 'largest body imported, after decompression; larger responses are skipped',
        })
        .example('$0 import site.warc.gz --db site.sqlite', 'one WARC into a new archive')
        .example('$0 import crawl-*.warc.gz --db site.sqlite', 'all the files of one crawl, so revisits find their originals')
        .example('$0 import browsertrix-crawl.wacz --db site.sqlite', "a WACZ's WARCs, with its pages.jsonl saying which URLs are pages"),
    handler: async (args) => {
      const db = String(args.db);
      if (db === '' || db === ':memory:') throw new UsageError('--db must name a file');
      const maxBody = Number(args['max-body']);
      if (!Number.isInteger(maxBody) || maxBody < 1 || maxBody > 1_000_000_000)
        throw new UsageError('--max-body must be a whole number from 1 to 1000000000');
      const files = (args.warcs as unknown[]).map(String);
      const [{ importWarcs }, { formatImportProgress, formatImportReport }] = await Promise.all([
        import('../../library/import.js'),
        import('../format-import-report.js'),
      ]);
      const { io } = context;
      const verbosity = context.verbosity(args);
      let nextProgress = PROGRESS_EVERY_RECORDS;
      const { result: tally } = await runInterruptible(
        context,
        ({ signal }) =>
          importWarcs({
            files,
            db,
            owner: io.owner,
            maxBodyBytes: maxBody,
            onWait: (message) => io.stderr(`${message}\n`),
            onProblem: ({ file, offset, message }) => io.stderr(`crawlite: ${file}: offset ${offset}: ${message}\n`),
            onSkip: ({ file, offset, code, message }) => {
              if (verbosity === 'verbose') io.stderr(`skipped: ${file}: offset ${offset}: ${code}: ${message}\n`);
            },
            onProgress: (progress) => {
              if (verbosity === 'quiet' || progress.records < nextProgress) return;
              nextProgress = progress.records + PROGRESS_EVERY_RECORDS;
              io.stderr(`${formatImportProgress(progress)}\n`);
            },
            signal,
          }),
        {
          stopping: 'stopping: committing what was read (Ctrl-C again to quit now)\n',
          quitNotice: 'crawlite: stopped at once; the records committed so far stay in the archive\n',
          stopped: (report) => report.stopped,
        },
      );
      if (!tally) return;
      if (tally.runId === undefined) {
        // Not one WARC record: the archive is not created (or, if it existed, not touched).
        if (verbosity !== 'quiet')
          io.stdout(
            `nothing imported: no WARC record in ${files.length === 1 ? 'the file' : `the ${files.length} files`}; ${db} ${existsSync(db) ? 'left as it was' : 'not created'}\n`,
          );
      } else if (verbosity !== 'quiet') io.stdout(`${formatImportReport(db, tally)}\n`);
      if (!tally.stopped && tally.problems > 0) context.exitCode = EXIT_DAMAGED_INPUT;
    },
  };
}
