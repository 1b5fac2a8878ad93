import type { CommandModule } from 'yargs';
import { milliseconds } from '../milliseconds-flag.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

function portNumber(flag: string) {
  return (value: unknown): number => {
    const port = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--${flag} must be a whole number from 0 to 65535, got ${String(value)}`);
    return port;
  };
}

export function serveCommand(context: CommandContext): CommandModule {
  return {
    command: 'serve <db>',
    describe: 'browse an archive in a web browser: overview, URLs, search, each capture and its replay (read-only)',
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('port', {
          alias: 'p',
          type: 'number',
          default: 8080,
          coerce: portNumber('port'),
          describe: 'port of the UI (0 picks a free one)',
        })
        .option('replay-port', {
          type: 'number',
          default: 0,
          coerce: portNumber('replay-port'),
          describe: 'port of the replay origin, where archived pages run (0 picks a free one)',
        })
        .option('host', {
          type: 'string',
          default: '127.0.0.1',
          describe: 'address to listen on; anything but loopback exposes the archive to the network',
        })
        .option('open', { type: 'boolean', default: false, describe: 'open the UI in the desktop browser' })
        .option('search-timeout', {
          type: 'number',
          defaultDescription: '5000',
          coerce: milliseconds('search-timeout'),
          describe:
            'time limit in ms of one search, and of one SQL statement on the SQL page; past it the work is stopped and the page says so',
        })
        .example('$0 serve site.sqlite', 'then open http://127.0.0.1:8080/')
        .example('$0 serve site.sqlite --port 0 --open', 'a free port, opened in the browser')
        .example('$0 serve site.sqlite --port 8080 --replay-port 8081', 'both ports fixed, for a firewall, a container or a reverse proxy'),
    handler: async (args) => {
      const [{ serve }, { openBrowser }] = await Promise.all([import('../../library/serve.js'), import('../open-browser.js')]);
      const { io } = context;
      const host = String(args.host);
      if (!host) throw new UsageError('--host needs an address, e.g. 127.0.0.1');
      const [port, replayPort] = [args.port as number, args.replayPort as number];
      if (port !== 0 && port === replayPort)
        throw new UsageError(`--replay-port must differ from --port (both ${port}): replay runs on an origin of its own`);
      const serving = await serve({
        db: String(args.db),
        host,
        port,
        replayPort,
        ...(args.searchTimeout !== undefined ? { searchTimeoutMs: args.searchTimeout as number } : {}),
      });
      // The UI's URL first and alone on its line: scripts and tests read it.
      io.stdout(`${serving.uiUrl}\n`);
      // On loopback each archived site replays on a host of its own under crawlite.localhost, at its captured path.
      const where = serving.loopback
        ? `each archived site runs on a host of its own, http://<time>-<site>.crawlite.localhost:${new URL(serving.replayOrigin).port}/, apart from the UI`
        : 'archived pages run there, apart from the UI';
      io.stdout(`replay origin: ${serving.replayOrigin}/ (${where}); Ctrl-C to stop\n`);
      if (!serving.loopback) {
        io.stderr(`crawlite: warning: listening on ${host}, not loopback: anyone who can reach this machine can read the archive\n`);
      }
      if (args.open) openBrowser(serving.uiUrl);
      await new Promise<void>((resolve) => {
        const unlisten = io.onInterrupt(() => {
          unlisten();
          resolve();
        });
      });
      await serving.close();
    },
  };
}
