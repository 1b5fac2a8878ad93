import type { CommandModule } from 'yargs';
import { formatBytes } from '../../format-bytes.js';
import type { CommandContext } from './context.js';

export function compactCommand(context: CommandContext): CommandModule {
  return {
    command: 'compact <db>',
    describe: "compress an archive's bodies (zlib, readable with sqlar_uncompress); --undo gives them back raw",
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('undo', { type: 'boolean', default: false, describe: 'store the bodies raw again, and new ones raw' })
        .example('$0 compact site.sqlite', 'a smaller archive; crawls into it keep compressing')
        .example('$0 compact site.sqlite --undo', 'raw bodies again'),
    handler: async (args) => {
      const { compact } = await import('../../library/compact.js');
      const path = String(args.db);
      const undo = args.undo === true;
      const report = compact({ db: path, undo });
      if (context.verbosity(args) === 'quiet') return;
      if (report.leftoverRemoved) context.io.stderr(`removed the copy an interrupted compact of ${path} left beside it\n`);
      context.io.stdout(
        `${undo ? 'uncompressed' : 'compressed'} ${report.bodies} bod${report.bodies === 1 ? 'y' : 'ies'} in ${(report.ms / 1000).toFixed(1)} s; ${path}: ${formatBytes(report.bytesBefore)} -> ${formatBytes(report.bytesAfter)}\n`,
      );
    },
  };
}
