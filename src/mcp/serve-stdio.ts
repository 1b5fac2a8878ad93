import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openArchiveAccess } from './archive-access.js';
import { archiveServer } from './archive-server.js';

export interface McpStdio {
  /** Resolves once the client closed the input (or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Answers MCP requests read from `input` on `output` (a client's pipes to this process) until the input ends. */
export async function serveMcpStdio(path: string, version: string, input: Readable, output: Writable): Promise<McpStdio> {
  const archive = openArchiveAccess(path);
  const server = archiveServer(archive, version);
  const transport = new StdioServerTransport(input, output);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await server.close();
      archive.close();
      done();
    })());
  // StdioServerTransport does not notice the end of its input: the client closing its pipe ends the server.
  input.once('end', () => void close());
  input.once('close', () => void close());
  await server.connect(transport);
  return { closed, close };
}
