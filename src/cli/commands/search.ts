import type { CommandModule } from 'yargs';
import { rowStream, ROW_FORMATS, type RowFormat, type RowStream } from '../format-rows.js';
import { runInterruptible } from '../interruptible-task.js';
import { milliseconds } from '../milliseconds-flag.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

const MAX_LIMIT = 1_000_000;

function count(flag: string, min: number) {
  return (value: unknown): number => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n) || n < min || n > MAX_LIMIT)
      throw new UsageError(`--${flag} must be a whole number from ${min} to ${MAX_LIMIT}, got ${String(value)}`);
    return n;
  };
}

export function searchCommand(context: CommandContext): CommandModule {
  return {
    command: 'search <db> <query>',
    describe: "full-text search of the archived pages' text, best matches first",
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .positional('query', {
          type: 'string',
          describe: 'words as typed (sys.path, C++; stemmed: crawling finds crawl) and "a phrase"; with --fts, FTS5 syntax',
        })
        .option('fts', { type: 'boolean', default: false, describe: 'read the query as FTS5 syntax: OR, NOT, NEAR, column:word, prefix*' })
        .option('limit', { alias: 'n', type: 'number', default: 20, coerce: count('limit', 1), describe: 'hits shown at most' })
        .option('offset', {
          type: 'number',
          default: 0,
          coerce: count('offset', 0),
          describe: 'hits skipped first (the next page of results)',
        })
        .option('format', { alias: 'f', choices: ROW_FORMATS, default: 'table' as RowFormat, describe: 'output format' })
        .option('timeout', {
          type: 'number',
          coerce: milliseconds('timeout'),
          defaultDescription: 'none',
          describe: 'time limit for the search in ms (like query --timeout); Ctrl-C stops it too',
        })
        .example('$0 search site.sqlite "crawler"', 'pages about crawlers (or crawling)')
        .example('$0 search site.sqlite "sys.path f-string"', 'words as typed, punctuation and all')
        .example('$0 search site.sqlite --fts \'"full text" OR fts5 NOT sqlite\'', 'a phrase or a word, without another')
        .example('$0 search site.sqlite --fts "arch*" --limit 50 -f json', 'a prefix, as JSON')
        .example('$0 search site.sqlite "中文搜索"', 'Chinese, Japanese, Korean: any 3 characters or more')
        .example('$0 search site.sqlite --fts "arch* OR lib*" --timeout 10000', 'give up after 10 seconds'),
    handler: async (args) => {
      const { searchArchive } = await import('../../library/search.js');
      const { io } = context;
      const path = String(args.db);
      const output: RowStream = rowStream(['url', 'title', 'snippet'], args.format as RowFormat);
      let readerGone = false;
      /** Writes, then waits while stdout is backed up; false once its reader went away. */
      const write = async (text: string) => {
        if (!text || io.stdout(text) !== false) return true;
        return io.drain();
      };
      // In a process of its own: Ctrl-C and --timeout kill it inside SQLite, where this one could not stop it.
      const end = await runInterruptible(
        context,
        (task) =>
          searchArchive({
            db: path,
            query: String(args.query),
            limit: args.limit as number,
            offset: args.offset as number,
            mode: args.fts ? 'fts' : 'typed',
            ...(args.timeout !== undefined ? { timeoutMs: args.timeout as number } : {}),
            timeoutSetting: '--timeout',
            onHits: async (hits) => {
              if (await write(output.rows(hits.map((hit) => [hit.url, hit.title, hit.snippet])))) return;
              readerGone = true;
              task.abort();
            },
            signal: task.signal,
          }),
        { stopped: () => !readerGone, interrupted: () => 'crawlite: search interrupted\n' },
      );
      if (end.interrupted || end.result.end !== 'done') return;
      await write(output.end());
      const missing = end.result.unindexed;
      if (missing > 0)
        io.stderr(
          `crawlite: ${missing} HTML page${missing === 1 ? ' has' : 's have'} no text in the search index; run crawlite reindex ${path}\n`,
        );
    },
  };
}
