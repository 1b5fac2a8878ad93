import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// What an export shows while it runs: a live line on a terminal, cleared at
// the end, then one summary line; nothing more off a terminal; -q nothing.

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/a">a</a> <a href="/b">b</a>'), '/a': html('a'), '/b': html('b') }));
  expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('crawlite export: progress', () => {
  it('draws a live progress line on a terminal, clears it, and prints a summary', async () => {
    const drawn: string[] = [];
    const result = await runCli(['export', db, '--warc', tmp.path('live.warc.gz')], {
      statusStream: { write: (text) => drawn.push(text), columns: 120 },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(drawn[0]).toMatch(/^\r\x1b\[Kexporting: 1 responses, [\d.]+ (B|KiB) written$/);
    expect(drawn.at(-1)).toBe('\r\x1b[K');
    expect(result.stdout).toMatch(/^exported 4 responses \(0 as revisits\), WARC [\d.]+ KiB: .*live\.warc\.gz\n$/);
  });

  it('prints only the summary off a terminal, and nothing with -q', async () => {
    const plain = await runCli(['export', db, '--warc', tmp.path('plain.warc.gz')]);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout.split('\n')).toHaveLength(2);
    expect(await runCli(['export', db, '--warc', tmp.path('quiet.warc.gz'), '-q'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
