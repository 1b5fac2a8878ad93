import type { CommandModule } from 'yargs';
import { runInterruptible } from '../interruptible-task.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

const LIVE_EVERY_MS = 250;
/** Off a terminal, one progress line per this many bytes of WARC. */
const PLAIN_EVERY_BYTES = 64 * 1024 * 1024;

export function exportCommand(context: CommandContext): CommandModule {
  return {
    command: 'export <db>',
    describe: 'write an archive as a WARC (with its CDXJ index) or a WACZ, for replay tools and web archives',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('warc', { type: 'string', describe: 'write a WARC/1.1 file (gzip per record), e.g. site.warc.gz' })
        .option('cdxj', { type: 'string', describe: 'write a CDXJ index of the WARC (needs --warc, or indexes the WARC inside --wacz)' })
        .option('wacz', { type: 'string', describe: 'write a WACZ 1.1.1 package: WARC, index, pages list' })
        .option('markdown', {
          type: 'string',
          describe: "write each HTML page's main content as a .md file in this directory, with llms.txt and llms-full.txt",
        })
        .option('force', {
          type: 'boolean',
          default: false,
          describe: 'overwrite output files that exist (or write into a --markdown directory that is not empty)',
        })
        .option('include-failed', {
          type: 'boolean',
          default: false,
          describe: 'add URLs that failed without a response, as metadata records with their error',
        })
        .option('operator', { type: 'string', describe: 'who made the crawl, for the warcinfo record' })
        .option('description', { type: 'string', describe: 'what the crawl is, for the warcinfo record and the WACZ' })
        .option('title', { type: 'string', defaultDescription: '"crawl of <first root>"', describe: "the WACZ's title" })
        .example('$0 export site.sqlite --warc site.warc.gz --cdxj site.cdxj', 'a WARC and its index, for pywb')
        .example('$0 export site.sqlite --wacz site.wacz', 'one file to open in ReplayWeb.page')
        .example('$0 export site.sqlite --markdown site-md', 'one .md file per page, llms.txt and llms-full.txt')
        .example(
          '$0 export site.sqlite --warc site.warc.gz --include-failed --operator "Jane Doe <jane@example.com>"',
          'failures too, signed',
        ),
    handler: async (args) => {
      const warc = args.warc as string | undefined;
      const cdxj = args.cdxj as string | undefined;
      const wacz = args.wacz as string | undefined;
      const markdownDir = args.markdown as string | undefined;
      if (warc === undefined && wacz === undefined && markdownDir === undefined)
        throw new UsageError('name an output: --warc FILE, --wacz FILE and/or --markdown DIR');
      for (const [flag, value] of [
        ['--warc', warc],
        ['--cdxj', cdxj],
        ['--wacz', wacz],
        ['--markdown', markdownDir],
      ] as const) {
        if (value === '') throw new UsageError(`${flag} needs a file name`);
      }
      const { io } = context;
      const quiet = context.verbosity(args) === 'quiet';
      if (markdownDir !== undefined && cdxj !== undefined && warc === undefined && wacz === undefined)
        throw new UsageError('--cdxj needs --warc or --wacz');
      if (markdownDir !== undefined) {
        const { exportMarkdown } = await import('../../library/export-markdown.js');
        const done = await runInterruptible(
          context,
          ({ signal }) => exportMarkdown({ db: String(args.db), dir: markdownDir, force: Boolean(args.force), signal }),
          { rejectsOnAbort: true, interrupted: () => 'crawlite: export interrupted; the Markdown directory is incomplete\n' },
        );
        if (done.interrupted) return;
        if (!quiet) io.stdout(`exported ${done.result.pages} page${done.result.pages === 1 ? '' : 's'} as Markdown: ${markdownDir}\n`);
        if (warc === undefined && wacz === undefined) return;
      }
      const [{ exportArchive }, { formatBytes }] = await Promise.all([import('../../library/export.js'), import('../format-report.js')]);
      const live = !quiet && io.isTTY && io.statusStream ? io.statusStream : undefined;
      let drawnAt = 0;
      let nextPlain = PLAIN_EVERY_BYTES;
      const progress = ({ bytes, responses }: { bytes: number; responses: number }) => {
        const line = `exporting: ${responses} responses, ${formatBytes(bytes)} written`;
        if (live && Date.now() - drawnAt >= LIVE_EVERY_MS) {
          drawnAt = Date.now();
          live.write(`\r\x1b[K${line}`);
        } else if (!live && !quiet && bytes >= nextPlain) {
          nextPlain = bytes + PLAIN_EVERY_BYTES;
          io.stderr(`${line}\n`);
        }
      };
      const end = await runInterruptible(
        context,
        ({ signal }) =>
          exportArchive({
            db: String(args.db),
            ...(warc !== undefined ? { warc } : {}),
            ...(cdxj !== undefined ? { cdxj } : {}),
            ...(wacz !== undefined ? { wacz } : {}),
            force: Boolean(args.force),
            includeFailed: Boolean(args['include-failed']),
            ...(args.operator !== undefined ? { operator: String(args.operator) } : {}),
            ...(args.description !== undefined ? { description: String(args.description) } : {}),
            ...(args.title !== undefined ? { title: String(args.title) } : {}),
            version: io.version,
            signal,
            onProgress: progress,
          }),
        {
          rejectsOnAbort: true,
          interrupted: () => 'crawlite: export interrupted; no output was written\n',
          cleanup: () => live?.write('\r\x1b[K'),
        },
      );
      if (end.interrupted || quiet) return;
      const summary = end.result;
      const failed = summary.failed ? `, ${summary.failed} failed URLs` : '';
      const screenshots = summary.screenshots ? `, ${summary.screenshots} screenshots` : '';
      const skipped = summary.screenshotsSkipped ? `, ${summary.screenshotsSkipped} screenshots left out (not an image type)` : '';
      io.stdout(
        `exported ${summary.responses} responses (${summary.revisits} as revisits${failed}${screenshots}${skipped}), WARC ${formatBytes(summary.bytes)}: ${summary.written.join(', ')}\n`,
      );
    },
  };
}
