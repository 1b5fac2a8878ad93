import type { CommandModule } from 'yargs';
import { rowStream, ROW_FORMATS, type RowFormat } from '../format-rows.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

function crawlNumber(flag: string) {
  return (value: unknown): number => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--${flag} must be a crawl number (1 is the first crawl), got ${String(value)}`);
    return n;
  };
}

export function diffCommand(context: CommandContext): CommandModule {
  return {
    command: 'diff <db>',
    describe: 'what changed between two crawls of an archive, or how one page changed',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('from', {
          type: 'number',
          coerce: crawlNumber('from'),
          defaultDescription: 'the crawl before --to',
          describe: 'the earlier crawl',
        })
        .option('to', { type: 'number', coerce: crawlNumber('to'), defaultDescription: 'the latest crawl', describe: 'the later crawl' })
        .option('url', { type: 'string', describe: "a unified diff of this page's text in the two crawls" })
        .option('format', {
          alias: 'f',
          choices: ROW_FORMATS,
          default: 'table' as RowFormat,
          describe: 'output format of the list of changes',
        })
        .option('all', { type: 'boolean', default: false, describe: 'list the unchanged URLs too' })
        .example('$0 diff site.sqlite', 'counts of each kind, and the URLs new, changed, redirected or gone since the crawl before')
        .example('$0 diff site.sqlite --all -f ndjson', 'every URL, the unchanged too, one JSON object a line')
        .example('$0 diff site.sqlite --from 1 --to 3 -f csv', 'the first crawl against the third, as CSV')
        .example('$0 diff site.sqlite --url https://example.com/about', "the page's text, crawl before against latest"),
    handler: async (args) => {
      const { diffCrawls, diffPage, CHANGE_KINDS } = await import('../../library/diff.js');
      const asked = {
        db: String(args.db),
        ...(args.from !== undefined ? { from: args.from as number } : {}),
        ...(args.to !== undefined ? { to: args.to as number } : {}),
      };
      if (args.url !== undefined) {
        const page = await diffPage({ ...asked, url: String(args.url) });
        context.io.stdout(
          page.same
            ? `${page.url}: the text is the same in crawl ${page.from} and crawl ${page.to}${page.bodiesDiffer ? ' (the bodies differ)' : ''}\n`
            : page.patch,
        );
        return;
      }
      const { from, to, changes: rows } = await diffCrawls(asked);
      const format = args.format as RowFormat;
      let out = '';
      if (format === 'table') {
        const counts = rowStream(['change', 'urls'], 'table');
        const tally = CHANGE_KINDS.map((kind) => [kind, rows.filter((row) => row.change === kind).length]);
        out += `crawl ${from} -> crawl ${to}\n${counts.rows(tally)}${counts.end()}\n`;
      }
      // A re-crawl leaves most URLs unchanged: listing them would bury the changes.
      const listed = args.all ? rows : rows.filter((row) => row.change !== 'unchanged');
      const list = rowStream(['url', 'change', 'from_status', 'to_status', 'from_fetched_at', 'to_fetched_at'], format);
      out +=
        list.rows(listed.map((row) => [row.url, row.change, row.from_status, row.to_status, row.from_fetched_at, row.to_fetched_at])) +
        list.end();
      if (format === 'table' && !args.all && listed.length < rows.length)
        out += `${rows.length - listed.length} unchanged not listed (--all lists them)\n`;
      context.io.stdout(out);
    },
  };
}
