import yargs from 'yargs';
import { CrawliteError } from '../crawlite-error.js';
import { controlCommand } from './commands/control.js';
import { crawlCommand } from './commands/crawl.js';
import { CommandContext } from './commands/context.js';
import { diffCommand } from './commands/diff.js';
import { demoCommand } from './commands/demo.js';
import { exportCommand } from './commands/export.js';
import { frontierCommand } from './commands/frontier.js';
import { importCommand } from './commands/import.js';
import { mergeCommand } from './commands/merge.js';
import { qaCommand } from './commands/qa.js';
import { queryCommand } from './commands/query.js';
import { recrawlCommand } from './commands/recrawl.js';
import { reindexCommand } from './commands/reindex.js';
import { markdownCommand } from './commands/markdown.js';
import { resumeCommand } from './commands/resume.js';
import { retryCommand } from './commands/retry.js';
import { searchCommand } from './commands/search.js';
import { serveCommand } from './commands/serve.js';
import { mcpCommand } from './commands/mcp.js';
import { statsCommand } from './commands/stats.js';
import { unlockCommand } from './commands/unlock.js';
import { compactCommand } from './commands/compact.js';
import { workerCommand } from './commands/worker.js';
import { EXIT_FAILURE, type CliIo } from './io.js';
import { skipHelpCache } from './skip-help-cache.js';
import { UsageError } from './usage-error.js';

/** yargs spreads some messages over several lines ("Invalid values:" then the details); a usage error is one line. */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');

function reportError(error: unknown, io: CliIo, verbose: boolean): number {
  if (error instanceof UsageError) {
    io.stderr(`crawlite: ${error.message} (see crawlite --help)\n`);
  } else if (error instanceof CrawliteError) {
    io.stderr(`crawlite: ${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`crawlite: unexpected error: ${message}${verbose ? '' : ' (run with -v for details)'}\n`);
  }
  // A usage error's stack is yargs's own, of no help to anyone.
  if (verbose && !(error instanceof UsageError) && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return EXIT_FAILURE;
}

/** Thrown after the parser accepted a command line, in parse-only mode, in place of running it. */
class ParsedOnly {
  constructor(readonly args: Record<string, unknown>) {}
}

export interface MainOptions {
  /**
   * Check the command line with the CLI's own parser (commands, flags, types, choices, conflicts)
   * and stop before the command runs: exit code 0 when it would run, 1 and the usage line when not.
   * How the documentation's examples are held to the CLI.
   */
  parseOnly?: boolean;
}

/** Runs the command line and returns the exit code; never exits the process itself. */
export async function main(argv: string[], io: CliIo, options: MainOptions = {}): Promise<number> {
  const context = new CommandContext(io);
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  let output = '';
  try {
    const parser = yargs(argv);
    skipHelpCache(parser);
    await parser
      .scriptName('crawlite')
      .usage('$0 <command> [options]\n\nArchive a website into one SQLite file, resume it after any crash, query it with SQL.')
      .command(crawlCommand(context))
      .command(resumeCommand(context))
      .command(recrawlCommand(context))
      .command(retryCommand(context))
      .command(controlCommand(context))
      .command(queryCommand(context))
      .command(searchCommand(context))
      .command(reindexCommand(context))
      .command(markdownCommand(context))
      .command(qaCommand(context))
      .command(statsCommand(context))
      .command(diffCommand(context))
      .command(exportCommand(context))
      .command(serveCommand(context))
      .command(mcpCommand(context))
      .command(importCommand(context))
      .command(mergeCommand(context))
      .command(demoCommand(context))
      .command(compactCommand(context))
      .command(unlockCommand(context))
      .command(frontierCommand(context))
      .command(workerCommand(context))
      .option('quiet', { alias: 'q', type: 'boolean', global: true, describe: 'print only errors' })
      .option('verbose', { alias: 'v', type: 'boolean', global: true, describe: 'show stack traces on errors' })
      .conflicts('quiet', 'verbose')
      .demandCommand(
        1,
        'name a command: crawl, resume, recrawl, retry, import, merge, query, search, reindex, markdown, stats, diff, export, serve, mcp, compact, unlock, demo, frontier or worker',
      )
      .recommendCommands()
      .strict()
      .help()
      .alias('h', 'help')
      .version(io.version)
      // Unwrapped: an example wrapped mid-command cannot be copied; terminals fold long lines themselves.
      .wrap(null)
      .exitProcess(false)
      // After validation, before the handler: the place a parse-only run stops.
      .middleware((args) => {
        if (options.parseOnly) throw new ParsedOnly(args);
      }, false)
      .fail((message, error) => {
        // yargs reports its own validation (unknown flags, coerce failures) as YError.
        if (error && error.name !== 'YError') throw error;
        throw new UsageError(oneLine(error?.message ?? message));
      })
      .parseAsync(argv, {}, (_error, _args, text) => {
        output = text;
      });
  } catch (error) {
    if (error instanceof ParsedOnly) return 0;
    return reportError(error, io, verbose);
  }
  if (output) io.stdout(`${output}\n`);
  return context.exitCode;
}
