import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { BIN } from '../support/cli.js';
import { crawlTwice, type TwoCrawls } from '../support/mcp-client.js';

// A client may write its requests and close its end at once (`printf ... | crawlite mcp site.sqlite`):
// every request read is answered before the server ends, and it ends by itself, exit 0.

const tmp = tempDir();
let crawled: TwoCrawls;

beforeAll(async () => {
  crawled = await crawlTwice(tmp.path('site.sqlite'));
});

afterAll(async () => {
  await crawled?.site.close();
  tmp.cleanup();
});

const message = (id: number, method: string, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('crawlite mcp over stdio, its input closed after the requests', () => {
  it('answers every request, then exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', crawled.db], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(
      [
        message(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        message(2, 'tools/call', { name: 'sql', arguments: { sql: 'SELECT count(*) AS n FROM pages' } }),
        message(3, 'tools/call', { name: 'search', arguments: { query: 'sandwiches' } }),
        '',
      ].join('\n'),
    );
    expect(await exited, stderr).toBe(0);
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { content?: Array<{ text: string }>; isError?: boolean } });
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    const byId = new Map(answers.map((answer) => [answer.id, answer.result]));
    expect(byId.get(2)!.isError).toBeUndefined();
    expect(JSON.parse(byId.get(2)!.content![0]!.text).rows[0].n).toBeGreaterThan(5);
    expect(byId.get(3)!.content![0]!.text).toContain('/docs/a');
  });
});
