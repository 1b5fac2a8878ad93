import type { Readable, Writable } from 'node:stream';

/** An archive's tools for a model's client (Model Context Protocol), as `crawlite mcp`: read-only. */
export interface McpInput {
  /** The archive file; opened read-only, so a crawl may be writing it. */
  db: string;
}

export interface McpStdioInput extends McpInput {
  /** What the client writes (the process's stdin). */
  input: Readable;
  /** Where the answers go (the process's stdout): nothing else may be written there. */
  output: Writable;
}

export interface McpHttpInput extends McpInput {
  /** The port on 127.0.0.1; 0 picks a free one. */
  port: number;
}

export interface McpSession {
  /** Resolves once the client closed its end. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export interface McpListening {
  /** `http://127.0.0.1:PORT/mcp`, where clients post. */
  url: string;
  close(): Promise<void>;
}

/** Serves MCP over a pair of streams until the input ends; a file that is no archive rejects before any answer. */
export async function mcpStdio(input: McpStdioInput): Promise<McpSession> {
  const [{ serveMcpStdio }, { version }] = await Promise.all([import('../mcp/index.js'), import('./package-version.js')]);
  return serveMcpStdio(input.db, version, input.input, input.output);
}

/** Serves MCP over Streamable HTTP on 127.0.0.1 only, until close(); a port in use rejects with ServeListenError. */
export async function mcpHttp(input: McpHttpInput): Promise<McpListening> {
  const [{ serveMcpHttp }, { version }] = await Promise.all([import('../mcp/index.js'), import('./package-version.js')]);
  return serveMcpHttp(input.db, version, input.port);
}
