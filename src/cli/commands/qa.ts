import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import { milliseconds } from '../milliseconds-flag.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

function wholeNumber(flag: string, min: number, max: number) {
  return (value: unknown): number => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got ${String(value)}`);
    return n;
  };
}

function share(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--threshold must be a number from 0 to 1, got ${String(value)}`);
  return n;
}

export function qaCommand(context: CommandContext): CommandModule {
  return {
    command: 'qa <db>',
    describe:
      'replay every page in Chromium and score how faithfully it replays (screenshot, text, resources); scores go to the qa view and the UI',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('concurrency', {
          alias: 'c',
          type: 'number',
          default: 2,
          coerce: wholeNumber('concurrency', 1, 16),
          describe: 'pages replayed at once',
        })
        .option('page-timeout', {
          type: 'number',
          defaultDescription: '30000',
          coerce: milliseconds('page-timeout'),
          describe: 'time limit in ms of one page; past it the page is scored 0 with the reason',
        })
        .option('threshold', { type: 'number', default: 0.8, coerce: share, describe: 'pages scoring below it are counted in the summary' })
        .option('worst', {
          type: 'number',
          default: 5,
          coerce: wholeNumber('worst', 0, 1000),
          describe: 'how many of the worst pages the summary lists',
        })
        .option('chromium', {
          type: 'string',
          describe: 'the Chromium to run',
          defaultDescription: '$CRAWLITE_CHROMIUM, else /usr/bin/chromium',
        })
        .example('$0 qa site.sqlite', 'score every page, worst listed; see them in crawlite serve under QA')
        .example('$0 qa site.sqlite -c 4 --threshold 0.9', 'four pages at once, stricter'),
    handler: async (args) => {
      const { qa } = await import('../../library/qa.js');
      const { formatQaReport } = await import('../format-qa.js');
      const { io } = context;
      const path = String(args.db);
      const quiet = context.verbosity(args) === 'quiet';
      let shown = -1;
      const end = await runInterruptible(
        context,
        ({ signal }) =>
          qa({
            db: path,
            concurrency: args.concurrency as number,
            threshold: args.threshold as number,
            worst: args.worst as number,
            ...(args.pageTimeout !== undefined ? { pageTimeoutMs: args.pageTimeout as number } : {}),
            ...(args.chromium !== undefined ? { chromium: String(args.chromium) } : {}),
            owner: io.owner,
            onWait: (message) => io.stderr(`${message}\n`),
            signal,
            onProgress: ({ done, total }) => {
              if (quiet) return;
              if (done === 0) io.stderr(`qa: replaying ${total} page${total === 1 ? '' : 's'} of ${path} in Chromium\n`);
              else if (io.isTTY) io.stderr(`\rqa: ${done} of ${total} pages${done === total ? '\n' : ''}`);
              else if (done === total || done - shown >= 100) {
                shown = done;
                io.stderr(`qa: ${done} of ${total} pages\n`);
              }
            },
          }),
        {
          stopping: 'stopping: finishing the pages being replayed (Ctrl-C again to quit now)\n',
          stopped: (result) => result.stopped,
          interrupted: (result) =>
            `crawlite: qa interrupted after ${result?.checked ?? 0} of ${result?.total ?? 0} pages; the scores stored stay, run it again to check all\n`,
        },
      );
      if (end.result && !quiet) io.stdout(`${formatQaReport(end.result)}\n`);
    },
  };
}
