import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { loopbackHosts } from '../serve/loopback-hosts.js';
import { ServeListenError } from '../serve/serve-archive.js';
import { openArchiveAccess } from './archive-access.js';
import { archiveServer } from './archive-server.js';

/** Where a client posts its requests: `http://127.0.0.1:PORT/mcp`. */
export const MCP_PATH = '/mcp';
/** Loopback only: an archive is read by this machine's clients, never by the network. */
const HOST = '127.0.0.1';

export interface McpHttp {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  close(): Promise<void>;
}

/** The names this server answers to on `port`, as serve's on loopback: a DNS-rebinding page names its own host. */
function loopbackNames(port: number) {
  const hosts = loopbackHosts(port);
  return { hosts, origins: hosts.map((host) => `http://${host}`) };
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Serves MCP over Streamable HTTP on 127.0.0.1:`port` (0 picks a free one), stateless: each POST is
 * answered by a server of its own over the one archive. A foreign Host or Origin is refused with 403
 * before anything reads the archive, and the SDK's DNS-rebinding protection holds the same names.
 */
export async function serveMcpHttp(path: string, version: string, port: number): Promise<McpHttp> {
  const archive = openArchiveAccess(path);
  let names = loopbackNames(port);
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const origin = req.headers.origin;
    if (!names.hosts.includes(host)) return refuse(res, 403, `Invalid Host header: ${host}; use ${names.origins[0]}${MCP_PATH}`);
    if (origin !== undefined && !names.origins.includes(origin.toLowerCase())) return refuse(res, 403, `Invalid Origin header: ${origin}`);
    if (new URL(req.url ?? '/', 'http://mcp.invalid').pathname !== MCP_PATH) return refuse(res, 404, `Not found: MCP is at ${MCP_PATH}`);
    // Stateless: no session to stream to or end.
    if (req.method !== 'POST') return refuse(res, 405, `${req.method} is not supported: POST JSON-RPC to ${MCP_PATH}`, { allow: 'POST' });
    const server = archiveServer(archive, version);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts: names.hosts,
      allowedOrigins: names.origins,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void (async () => {
      try {
        await server.connect(transport);
        await transport.handleRequest(req, res);
      } catch (error) {
        if (!res.headersSent) refuse(res, 500, `crawlite could not answer: ${error instanceof Error ? error.message : String(error)}`);
        else res.destroy();
      }
    })();
  });
  const bound = await new Promise<number>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(new ServeListenError(HOST, port, error)));
    http.listen(port, HOST, () => resolve((http.address() as AddressInfo).port));
  }).catch((error: unknown) => {
    archive.close();
    throw error;
  });
  names = loopbackNames(bound);
  return {
    url: `http://${HOST}:${bound}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        archive.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
