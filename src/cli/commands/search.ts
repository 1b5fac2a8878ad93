import type { CommandModule } from 'yargs';
import { rowStream, ROW_FORMATS, type RowFormat } from '../format-rows.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

const MAX_LIMIT = 1_000_000;

function count(flag: string, min: number) {
  return (value: unknown): number => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n) || n < min || n > MAX_LIMIT) throw new UsageError(`--${flag} must be a whole number from ${min} to ${MAX_LIMIT}, got ${String(value)}`);
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
        .positional('query', { type: 'string', describe: 'words (stemmed: crawling finds crawl), "a phrase", OR, NOT, prefix*' })
        .option('limit', { alias: 'n', type: 'number', default: 20, coerce: count('limit', 1), describe: 'hits shown at most' })
        .option('offset', { type: 'number', default: 0, coerce: count('offset', 0), describe: 'hits skipped first (the next page of results)' })
        .option('format', { alias: 'f', choices: ROW_FORMATS, default: 'table' as RowFormat, describe: 'output format' })
        .example('$0 search site.sqlite "crawler"', 'pages about crawlers (or crawling)')
        .example('$0 search site.sqlite \'"full text" OR fts5 NOT sqlite\'', 'a phrase or a word, without another')
        .example('$0 search site.sqlite "arch*" --limit 50 -f json', 'a prefix, as JSON')
        .example('$0 search site.sqlite "中文搜索"', 'Chinese, Japanese, Korean: any 3 characters or more'),
    handler: async (args) => {
      const [{ openArchive, explainOpenError }, { pagesWithoutText, searchArchive }] = await Promise.all([
        import('../../storage/open-archive.js'),
        import('../../storage/search-archive.js'),
      ]);
      const path = String(args.db);
      const db = openArchive(path, 'readonly');
      try {
        const hits = (() => {
          try {
            return searchArchive(db, String(args.query), { limit: args.limit as number, offset: args.offset as number });
          } catch (error) {
            return explainOpenError(path, error);
          }
        })();
        const output = rowStream(['url', 'title', 'snippet'], args.format as RowFormat);
        context.io.stdout(output.rows(hits.map((hit) => [hit.url, hit.title, hit.snippet])) + output.end());
        const missing = hits.length === 0 ? pagesWithoutText(db) : 0;
        if (missing > 0) {
          context.io.stderr(`crawlite: ${missing} HTML page${missing === 1 ? ' has' : 's have'} no text in the search index; run crawlite reindex ${path}\n`);
        }
      } finally {
        db.close();
      }
    },
  };
}
