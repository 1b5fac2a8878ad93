import type { CommandModule } from 'yargs';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from './context.js';

function portNumber(value: unknown): number {
  const port = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${String(value)}`);
  return port;
}

export function mcpCommand(context: CommandContext): CommandModule {
  return {
    command: 'mcp <db>',
    describe: "serve an archive's tools to a model's client (Model Context Protocol): search, read pages, links, changes, SQL (read-only)",
    builder: (yargs) =>
      yargs
        .positional('db', { type: 'string', describe: 'archive file' })
        .option('http', { type: 'boolean', default: false, describe: 'serve Streamable HTTP on 127.0.0.1 instead of stdio' })
        .option('port', { alias: 'p', type: 'number', default: 8765, coerce: portNumber, describe: 'port of --http (0 picks a free one)' })
        .example('$0 mcp site.sqlite', 'over stdin and stdout: the command an MCP client starts')
        .example('$0 mcp site.sqlite --http --port 8765', 'then point the client at http://127.0.0.1:8765/mcp'),
    handler: async (args) => {
      const { mcpHttp, mcpStdio } = await import('../../library/mcp.js');
      const { io } = context;
      const db = String(args.db);
      if (!args.http) {
        const streams = io.protocolStreams?.();
        if (!streams) throw new UsageError('mcp over stdio needs the process streams: run it as a command, or use --http');
        // stdout carries the protocol alone: notices go to stderr.
        const session = await mcpStdio({ db, input: streams.input, output: streams.output });
        const unlisten = io.onInterrupt(() => void session.close());
        await session.closed;
        unlisten();
        return;
      }
      const listening = await mcpHttp({ db, port: args.port as number });
      // The URL first and alone on its line: scripts and tests read it.
      io.stdout(`${listening.url}\n`);
      io.stderr('crawlite: MCP over Streamable HTTP on loopback only; Ctrl-C to stop\n');
      await new Promise<void>((resolve) => {
        const unlisten = io.onInterrupt(() => {
          unlisten();
          resolve();
        });
      });
      await listening.close();
    },
  };
}
