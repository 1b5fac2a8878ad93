import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { callJson, callTool, crawlTwice, stdioClient, type McpClient, type TwoCrawls } from '../support/mcp-client.js';

// `crawlite mcp FILE` over stdio, as an MCP host starts it: the SDK's own client spawns the built
// CLI, initializes, lists the tools and calls each of them on an archive crawled twice.

const tmp = tempDir();
let crawled: TwoCrawls;
let mcp: McpClient;
const url = (path: string) => new URL(path, crawled.origin).href;

beforeAll(async () => {
  crawled = await crawlTwice(tmp.path('site.sqlite'));
  mcp = await stdioClient(crawled.db);
});

afterAll(async () => {
  await mcp?.close();
  await crawled?.site.close();
  tmp.cleanup();
});

/** The head lines of a read_page answer (name: value, up to `---`) and the page after them. */
function readAnswer(text: string): { head: Record<string, string>; page: string } {
  const end = text.indexOf('\n---\n');
  const head = Object.fromEntries(
    text
      .slice(0, end)
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
  );
  return { head, page: text.slice(end + 5) };
}

describe('crawlite mcp over stdio', () => {
  it('initializes as crawlite and lists every tool, each with a JSON schema of its arguments', async () => {
    expect(mcp.client.getServerVersion()?.name).toBe('crawlite');
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search', 'read_page', 'list_pages', 'links', 'changes', 'sql']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    expect(Object.keys(tools.find((tool) => tool.name === 'read_page')!.inputSchema.properties!)).toEqual(['url', 'timestamp', 'format']);
  });

  it('search finds a crawled page, with its title and a snippet that marks the words', async () => {
    const { hits } = await callJson<{ hits: Array<{ url: string; title: string; snippet: string }> }>(mcp.client, 'search', {
      query: 'walrus revised',
      limit: 5,
    });
    expect(hits[0]).toMatchObject({ url: url('/walrus'), title: 'The walrus operator' });
    expect(hits[0]!.snippet).toMatch(/\*\*revised\*\*/);
  });

  it('read_page gives the latest capture as text or as its HTML, with its date and status', async () => {
    const latest = readArchive<{ fetched_at: string }>(crawled.db, 'SELECT fetched_at FROM pages WHERE url = ?', url('/walrus'))[0]!;
    const text = readAnswer((await callTool(mcp.client, 'read_page', { url: url('/walrus'), format: 'text' })).text);
    expect(text.head).toMatchObject({ url: url('/walrus'), status: '200', crawl: '2', fetched_at: latest.fetched_at, format: 'text' });
    expect(text.page).toContain('Second edition, revised.');
    expect(text.page).not.toContain('<p>');
    const html = readAnswer((await callTool(mcp.client, 'read_page', { url: url('/walrus'), format: 'html' })).text);
    expect(html.page).toContain(
      '<h1>Assignment expressions</h1><p>The walrus operator assigns a value inside an expression. Second edition',
    );
    // Markdown by default: the main content, its heading as Markdown.
    const markdown = readAnswer((await callTool(mcp.client, 'read_page', { url: url('/walrus') })).text);
    expect(markdown.head.format).toBe('markdown');
    expect(markdown.head.note).toBeUndefined();
    expect(markdown.page).toMatch(/^#+ Assignment expressions$/m);
    expect(markdown.page).toContain('Second edition, revised.');
  });

  it('read_page with a timestamp gives the capture made at or before it: the first crawl', async () => {
    const first = readArchive<{ fetched_at: string }>(
      crawled.db,
      'SELECT fetched_at FROM captures WHERE url = ? ORDER BY fetched_at LIMIT 1',
      url('/walrus'),
    )[0]!;
    const answer = await callTool(mcp.client, 'read_page', { url: url('/walrus'), timestamp: first.fetched_at, format: 'text' });
    const read = readAnswer(answer.text);
    expect(read.head).toMatchObject({ crawl: '1', fetched_at: first.fetched_at, status: '200' });
    expect(read.page).toContain('First edition.');
    expect(read.page).not.toContain('revised');
  });

  it('read_page cuts a page past 200 KB, and says so', async () => {
    const answer = await callTool(mcp.client, 'read_page', { url: url('/big'), format: 'html' });
    expect(answer.isError).toBe(false);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(200 * 1024);
    expect(Buffer.byteLength(answer.text)).toBeGreaterThan(190 * 1024);
    expect(answer.text).toMatch(/\n\[cut at 200 KB of [\d,]+ bytes\]$/);
  });

  it('list_pages pages through a prefix with its cursor, and matches a GLOB pattern', async () => {
    type Listing = { pages: Array<{ url: string; status: number; title: string }>; next_cursor?: string };
    const first = await callJson<Listing>(mcp.client, 'list_pages', { prefix: url('/docs/'), limit: 2 });
    expect(first.pages.map((page) => page.url)).toEqual([url('/docs/a'), url('/docs/b')]);
    expect(first.pages[0]).toMatchObject({ status: 200, title: 'Docs a' });
    expect(first.next_cursor).toBe(url('/docs/b'));
    const second = await callJson<Listing>(mcp.client, 'list_pages', { prefix: url('/docs/'), limit: 2, cursor: first.next_cursor });
    expect(second.pages.map((page) => page.url)).toEqual([url('/docs/c')]);
    expect(second.next_cursor).toBeUndefined();
    const globbed = await callJson<Listing>(mcp.client, 'list_pages', { pattern: '*/docs/[ab]' });
    expect(globbed.pages.map((page) => page.url)).toEqual([url('/docs/a'), url('/docs/b')]);
  });

  it('links lists the links from a page and the pages that link to a URL', async () => {
    type Links = { links: Array<{ url: string; kind: string }> };
    const from = await callJson<Links>(mcp.client, 'links', { from: url('/') });
    expect(from.links.map((link) => link.url)).toEqual(expect.arrayContaining([url('/walrus'), url('/docs/a'), url('/fresh')]));
    const to = await callJson<Links>(mcp.client, 'links', { to: url('/walrus') });
    expect(to.links.map((link) => link.url).sort()).toEqual([url('/'), url('/docs/a'), url('/docs/b'), url('/docs/c')]);
    const paged = await callJson<Links & { next_cursor?: string }>(mcp.client, 'links', { to: url('/walrus'), limit: 3 });
    expect(paged.links).toHaveLength(3);
    expect(paged.next_cursor).toBe(paged.links[2]!.url);
  });

  it('changes compares the two crawls: counts of each kind and the URLs that changed', async () => {
    const answer = await callJson<{
      from: number;
      to: number;
      counts: Record<string, number>;
      changes: Array<{ url: string; change: string }>;
    }>(mcp.client, 'changes');
    expect([answer.from, answer.to]).toEqual([1, 2]);
    const changed = Object.fromEntries(answer.changes.map((row) => [new URL(row.url).pathname, row.change]));
    expect(changed).toMatchObject({ '/': 'changed', '/walrus': 'changed', '/gone': 'gone', '/fresh': 'new' });
    expect(Object.values(changed)).not.toContain('unchanged');
    expect(answer.counts).toMatchObject({ new: 1, gone: 1, changed: 2 });
    const gone = await callJson<{ changes: Array<{ url: string }> }>(mcp.client, 'changes', { from: 1, to: 2, kind: 'gone' });
    expect(gone.changes.map((row) => row.url)).toEqual([url('/gone')]);
  });
});
