import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, readArchive, tempDir } from '../support/archive.js';
import { callJson, callTool, crawlTwice, stdioClient, type TwoCrawls } from '../support/mcp-client.js';

// The sql tool reads with `crawlite query`'s guard and serve's limits; a write is an MCP error result and
// the archive stays as it was. A bad argument to any tool is an error result too, and the server goes on.

const tmp = tempDir();
let crawled: TwoCrawls;
let mcp: Awaited<ReturnType<typeof stdioClient>>;

beforeAll(async () => {
  crawled = await crawlTwice(tmp.path('site.sqlite'));
  mcp = await stdioClient(crawled.db);
});

afterAll(async () => {
  await mcp?.close();
  await crawled?.site.close();
  tmp.cleanup();
});

const urlCount = () => readArchive<{ n: number }>(crawled.db, 'SELECT count(*) AS n FROM urls')[0]!.n;

describe('crawlite mcp: sql', () => {
  it('returns the rows of a read, with their columns', async () => {
    const answer = await callJson<{ columns: string[]; rows: Array<Record<string, unknown>> }>(mcp.client, 'sql', {
      sql: "SELECT url, status FROM pages WHERE url LIKE '%/docs/%' ORDER BY url",
    });
    expect(answer.columns).toEqual(['url', 'status']);
    expect(answer.rows.map((row) => new URL(String(row.url)).pathname)).toEqual(['/docs/a', '/docs/b', '/docs/c']);
    expect(answer.rows.every((row) => row.status === 200)).toBe(true);
  });

  it('stops at 200 rows and says so', async () => {
    const answer = await callJson<{ rows: unknown[]; note?: string }>(mcp.client, 'sql', {
      sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) SELECT i FROM n',
    });
    expect(answer.rows).toHaveLength(200);
    expect(answer.note).toMatch(/first 200 rows/);
  });

  it('refuses a write with an error result, and the archive is unchanged', async () => {
    const before = { urls: urlCount(), sha: fileSha256(crawled.db) };
    expect(before.urls).toBeGreaterThan(5);
    for (const sql of ['delete from url', 'DELETE FROM urls', 'drop table link', "attach 'other.sqlite' as o"]) {
      const answer = await callTool(mcp.client, 'sql', { sql });
      expect(answer.isError, sql).toBe(true);
      expect(answer.text, sql).toMatch(/only reads|cannot modify|attach/i);
    }
    expect({ urls: urlCount(), sha: fileSha256(crawled.db) }).toEqual(before);
  });

  it('answers bad SQL and an endless query with an error result, within its time limit', async () => {
    expect(await callTool(mcp.client, 'sql', { sql: 'SELEC nothing' })).toMatchObject({ isError: true });
    const endless = await callTool(mcp.client, 'sql', {
      sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n',
    });
    expect(endless).toMatchObject({ isError: true });
    expect(endless.text).toMatch(/timed out/);
  });
});

describe('crawlite mcp: bad arguments', () => {
  it('are error results, never a crash: the server answers the next call', async () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['search', { query: 'walrus', limit: 500 }],
      ['search', {}],
      ['search', { query: 'walrus '.repeat(200) }],
      ['read_page', { url: 'http://127.0.0.1:1/never-crawled' }],
      ['read_page', { url: new URL('/walrus', crawled.origin).href, format: 'pdf' }],
      ['read_page', { url: new URL('/walrus', crawled.origin).href, timestamp: 'last tuesday' }],
      ['list_pages', { limit: 0 }],
      ['list_pages', { prefix: 'http://a/', pattern: '*' }],
      ['links', {}],
      ['links', { from: 'x', to: 'y' }],
      ['changes', { from: 7, to: 9 }],
      ['sql', { sql: 42 }],
    ];
    for (const [name, args] of bad) {
      const answer = await callTool(mcp.client, name, args);
      expect(answer.isError, `${name} ${JSON.stringify(args)}: ${answer.text}`).toBe(true);
      expect(answer.text.length, name).toBeGreaterThan(10);
    }
    await expect(mcp.client.callTool({ name: 'no_such_tool', arguments: {} })).resolves.toMatchObject({ isError: true });
    const { hits } = await callJson<{ hits: unknown[] }>(mcp.client, 'search', { query: 'walrus' });
    expect(hits.length).toBeGreaterThan(0);
    expect(mcp.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a file that is no archive: one line on stderr and a non-zero exit, no stack trace', async () => {
    const { execCli } = await import('../support/cli.js');
    const run = await execCli(['mcp', tmp.path('missing.sqlite')]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^crawlite: /);
  });
});
