import type { CommandModule } from 'yargs';
import type { CommandContext } from './context.js';

export function unlockCommand(context: CommandContext): CommandModule {
  return {
    command: 'unlock <db>',
    describe: 'clear the lock left by a crawl that is gone (refused while a crawl runs)',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .example('$0 unlock example.sqlite', 'remove a stale lock, e.g. before an older crawlite opens the file'),
    handler: async (args) => {
      const { unlock } = await import('../../library/unlock.js');
      const path = String(args.db);
      const result = unlock(path);
      if (!result.unlocked) {
        context.io.stdout(`${path} is not locked; nothing to do\n`);
        return;
      }
      const left = result.staleHolder ? ` left by ${result.staleHolder}` : ' left by a crawl that is gone';
      context.io.stdout(`unlocked ${path}: removed the lock${left}\n`);
    },
  };
}
