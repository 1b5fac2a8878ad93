import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// A root that answers, but not with a page (a mistyped path, a server error), is not a crawl that worked.
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer(
    routes({
      '/ok': html('<p>here</p>'),
      '/broken': { status: 500, body: 'oops' },
      '/moved-to-missing': { status: 301, headers: { location: '/missing' } },
      '/moved-to-ok': { status: 301, headers: { location: '/ok' } },
    }),
  );
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const crawl = (name: string, paths: string[], ...flags: string[]) =>
  runCli([
    'crawl',
    ...paths.map((path) => `${server.url}${path.slice(1)}`),
    '--db',
    tmp.path(`${name}.sqlite`),
    '--ignore-robots',
    '--max-tries',
    '1',
    '-q',
    ...flags,
  ]);

describe('roots that answer without a page', () => {
  it('a 404 root alone fails with exit 1 and one line naming it and its status', async () => {
    const result = await crawl('missing', ['/missing']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe(`crawlite: no root could be fetched: ${server.url}missing: HTTP 404\n`);
  });

  it('a root answering 500 after its tries fails with exit 1', async () => {
    const result = await crawl('broken', ['/broken']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^crawlite: no root could be fetched: ${server.url}broken: failed: .*500\\n$`));
  });

  it('a root redirected to a 404 is judged by where it led', async () => {
    const result = await crawl('moved-missing', ['/moved-to-missing']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe(
      `crawlite: no root could be fetched: ${server.url}moved-to-missing: HTTP 404 (redirected to ${server.url}missing)\n`,
    );
  });

  it('a root redirected to a page is a page: exit 0, no warning', async () => {
    const result = await crawl('moved-ok', ['/moved-to-ok']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('one root with a page is enough for exit 0; each other root gets a warning line', async () => {
    const result = await crawl('mixed', ['/ok', '/missing', '/moved-to-missing']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `crawlite: warning: root did not answer with a page: ${server.url}missing: HTTP 404`,
      `crawlite: warning: root did not answer with a page: ${server.url}moved-to-missing: HTTP 404 (redirected to ${server.url}missing)`,
    ]);
  });
});
