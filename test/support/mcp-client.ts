import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, execCli, spawnCli, type CliRun } from './cli.js';
import { ChangingSite, type Served } from './changing-site.js';
import { startServer, type TestServer } from './test-server.js';
import { firstLineOf } from './serve.js';

/** A client of `crawlite mcp`, as a model's host runs one: the SDK's own Client. */
export interface McpClient {
  client: Client;
  close(): Promise<void>;
}

/** One tool's answer: its text (the first content item) and whether it is an error result. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { text: content.map((item) => item.text ?? '').join(''), isError: result.isError === true };
}

/** A tool's answer read as the JSON it is; an error result fails the test with its text. */
export async function callJson<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer = await callTool(client, name, args);
  if (answer.isError) throw new Error(`${name} answered an error: ${answer.text}`);
  return JSON.parse(answer.text) as T;
}

/** `crawlite mcp DB` started by the SDK's stdio transport (the built CLI, as a client's config names it), connected. */
export async function stdioClient(db: string): Promise<McpClient & { stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', db], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'crawlite-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

/** `crawlite mcp DB --http --port 0`, with the URL it printed first. */
export async function startMcpHttp(db: string): Promise<{ url: string; stop: () => Promise<CliRun> }> {
  const child = spawnCli(['mcp', db, '--http', '--port', '0']);
  const url = await firstLineOf(child, 'mcp');
  return {
    url,
    stop: () => {
      child.kill('SIGINT');
      return child.exited;
    },
  };
}

/** The SDK's Client over Streamable HTTP to `url`, connected. */
export async function httpClient(url: string): Promise<McpClient> {
  const client = new Client({ name: 'crawlite-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, close: () => client.close() };
}

/** The site crawled twice: /walrus edited, /gone gone, /fresh new; /docs/a, /docs/b, /docs/c and /big (about 400 KB) the same. */
function answer(path: string, version: number): Served | undefined {
  const page = (title: string, body: string) => ({
    body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
  });
  const links = (...hrefs: string[]) => hrefs.map((href) => `<a href="${href}">${href}</a>`).join(' ');
  if (path === '/')
    return page('Home', `<h1>Home</h1>${links('/walrus', '/docs/a', '/docs/b', '/docs/c', version === 1 ? '/gone' : '/fresh')}`);
  if (path === '/walrus')
    return page(
      'The walrus operator',
      version === 1
        ? '<h1>Assignment expressions</h1><p>The walrus operator assigns a value inside an expression. First edition.</p><a href="/docs/a">docs</a>'
        : '<h1>Assignment expressions</h1><p>The walrus operator assigns a value inside an expression. Second edition, revised.</p><a href="/docs/a">docs</a>',
    );
  if (path.startsWith('/docs/'))
    return page(
      `Docs ${path.slice(6)}`,
      `<p>Reference page ${path.slice(6)} about sandwiches.</p><a href="/walrus">walrus</a> <a href="/big">big</a>`,
    );
  // Larger than one tool answer may be (200 KB).
  if (path === '/big') return page('Big', `<p>${'A long sentence of the big page. '.repeat(12_000)}</p>`);
  if (path === '/gone') return version === 1 ? page('Gone soon', '<p>Here today.</p>') : undefined;
  if (path === '/fresh') return version === 2 ? page('Fresh', '<p>New in the second crawl.</p>') : undefined;
  return undefined;
}

export interface TwoCrawls {
  db: string;
  site: TestServer;
  /** The site's origin with a trailing slash. */
  origin: string;
}

/** Crawls the site into `db`, changes it, and crawls it again. */
export async function crawlTwice(db: string): Promise<TwoCrawls> {
  const changing = new ChangingSite(answer);
  const site = await startServer(changing.handle);
  const first = await execCli(['crawl', site.url, '--db', db, '-q']);
  if (first.code !== 0) throw new Error(first.stderr);
  changing.version = 2;
  const second = await execCli(['recrawl', db, '-q']);
  if (second.code !== 0) throw new Error(second.stderr);
  return { db, site, origin: site.url };
}
