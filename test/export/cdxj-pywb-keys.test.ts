import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { cdxjKeysByUrl } from '../support/cdxj-read.js';

// An exported CDXJ is keyed as pywb looks captures up (Python's surt): a directory-style page's key has
// no trailing slash, escapes of `:` and `()` are decoded, query parameters sorted. Keyed otherwise, pywb
// answers 404 for those pages although the WARC holds them. The expected keys are Python surt's
// (test/fixtures/surt-keys.json has the same URLs on port 8080).

let site: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const cdxj = tmp.path('site.cdxj');
let keys: Map<string, string>;

beforeAll(async () => {
  site = await startServer(
    routes({
      '/': html(
        '<a href="/docs/guide/">guide</a> <a href="/p?x=a%3Ab">p</a> <a href="/a/b.html?z=1&a=2">b</a> <a href="/%28x%29">x</a>',
        'home',
      ),
      '/docs/guide/': html('guide', 'Guide'),
      '/p?x=a%3Ab': html('p', 'P'),
      '/a/b.html?z=1&a=2': html('b', 'B'),
      '/%28x%29': html('x', 'X'),
    }),
  );
  expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  expect(await execCli(['export', db, '--warc', tmp.path('site.warc.gz'), '--cdxj', cdxj, '-q'])).toEqual({
    code: 0,
    stdout: '',
    stderr: '',
  });
  keys = cdxjKeysByUrl(cdxj);
});

afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

describe('crawlite export --cdxj keys', () => {
  it("are pywb's: a directory-style page without its trailing slash", () => {
    expect(keys.get(`${site.url}docs/guide/`)).toBe(`1,0,0,127:${site.port})/docs/guide`);
    expect(keys.get(site.url)).toBe(`1,0,0,127:${site.port})/`);
  });

  it('decode the escapes surt decodes, and sort query parameters', () => {
    expect(keys.get(`${site.url}p?x=a%3Ab`)).toBe(`1,0,0,127:${site.port})/p?x=a:b`);
    expect(keys.get(`${site.url}%28x%29`)).toBe(`1,0,0,127:${site.port})/(x)`);
    expect(keys.get(`${site.url}a/b.html?z=1&a=2`)).toBe(`1,0,0,127:${site.port})/a/b.html?a=2&z=1`);
  });
});
