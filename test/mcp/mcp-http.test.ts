import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { callJson, callTool, crawlTwice, httpClient, startMcpHttp, type TwoCrawls } from '../support/mcp-client.js';

// `crawlite mcp FILE --http`: Streamable HTTP on 127.0.0.1 only, the SDK's client talking to it, and
// a request naming another Host or Origin (a DNS-rebinding page) refused before anything is read.

const tmp = tempDir();
let crawled: TwoCrawls;
let server: Awaited<ReturnType<typeof startMcpHttp>>;

beforeAll(async () => {
  crawled = await crawlTwice(tmp.path('site.sqlite'));
  server = await startMcpHttp(crawled.db);
});

afterAll(async () => {
  await server?.stop();
  await crawled?.site.close();
  tmp.cleanup();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

/** A POST of `initialize` to the server with these headers, as a browser page or curl would send it. */
function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          host: `127.0.0.1:${port}`,
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('crawlite mcp --http', () => {
  it('prints its URL on 127.0.0.1, and the SDK client initializes, lists the tools and calls them', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const mcp = await httpClient(server.url);
    try {
      expect(mcp.client.getServerVersion()?.name).toBe('crawlite');
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['search', 'read_page', 'list_pages', 'links', 'changes', 'sql']);
      const { hits } = await callJson<{ hits: Array<{ url: string; snippet: string }> }>(mcp.client, 'search', { query: 'sandwiches' });
      expect(hits.map((hit) => new URL(hit.url).pathname).sort()).toEqual(['/docs/a', '/docs/b', '/docs/c']);
      const page = await callTool(mcp.client, 'read_page', { url: new URL('/walrus', crawled.origin).href, format: 'text' });
      expect(page.text).toMatch(/^url: .*\/walrus\nfetched_at: \d{4}-/);
      expect(page.text).toContain('Second edition, revised.');
      expect(await callTool(mcp.client, 'sql', { sql: 'delete from url' })).toMatchObject({ isError: true });
      expect(await callTool(mcp.client, 'search', { query: 'x', limit: 51 })).toMatchObject({ isError: true });
      const { rows } = await callJson<{ rows: Array<{ n: number }> }>(mcp.client, 'sql', { sql: 'SELECT count(*) AS n FROM pages' });
      expect(rows[0]!.n).toBeGreaterThan(5);
    } finally {
      await mcp.close();
    }
  });

  it('answers its own names: 127.0.0.1 and localhost, with or without a local Origin', async () => {
    const port = new URL(server.url).port;
    expect((await post({})).status).toBe(200);
    expect((await post({ host: `localhost:${port}` })).status).toBe(200);
    expect((await post({ origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });

  it('refuses a request naming a foreign Host or Origin with 403', async () => {
    const port = new URL(server.url).port;
    const foreign: Array<Record<string, string>> = [
      { host: `evil.example:${port}` },
      { host: `attacker.test` },
      { host: `127.0.0.1:${Number(port) + 1}` },
      { origin: 'http://evil.example' },
      { origin: `http://evil.example:${port}` },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      const refused = await post(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body, JSON.stringify(headers)).not.toContain('crawlite"');
    }
  });

  it('listens on 127.0.0.1 only: no other address of this machine accepts a connection', async () => {
    const port = Number(new URL(server.url).port);
    expect(await accepts('127.0.0.1', port)).toBe(true);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
      .map((address) => address!.address);
    for (const address of ['::1', ...others]) expect(await accepts(address, port), address).toBe(false);
  });
});
