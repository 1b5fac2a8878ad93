import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { openArchiveAccess } from './archive-access.js';
import { archiveServer } from './archive-server.js';

export interface McpStdio {
  /** Resolves once the client closed the input and every request read was answered (or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

const isRequest = (message: JSONRPCMessage) => 'method' in message && 'id' in message;
const isAnswer = (message: JSONRPCMessage) => !('method' in message) && 'id' in message;

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
  await server.connect(transport);
  // A client may write its requests and close its end at once (`... | crawlite mcp`): the server ends
  // once the input has ended and each request read has its answer, not before.
  let unanswered = 0;
  let ended = false;
  const closeWhenDone = () => {
    if (ended && unanswered === 0) void close();
  };
  const receive = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (isRequest(message)) unanswered += 1;
    receive(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (isAnswer(message)) {
        unanswered -= 1;
        closeWhenDone();
      }
    }
  };
  const end = () => {
    ended = true;
    closeWhenDone();
  };
  // StdioServerTransport does not notice the end of its input by itself.
  input.once('end', end);
  input.once('close', end);
  return { closed, close };
}
