import type { CliIo } from '../io.js';
import type { Verbosity } from '../run-crawl.js';

/** What command handlers share: the process's I/O and where they leave their exit code. */
export class CommandContext {
  exitCode = 0;

  constructor(readonly io: CliIo) {}

  verbosity(args: Record<string, unknown>): Verbosity {
    if (args.quiet) return 'quiet';
    return args.verbose ? 'verbose' : 'normal';
  }
}
