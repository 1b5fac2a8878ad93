import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { solidPng } from '../support/png.js';
import { addScreenshot } from '../support/screenshot-row.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { cdxjKeysByUrl } from '../support/cdxj-read.js';

// A screenshot's CDXJ line is keyed as cdxj-indexer keys a resource record: Python's surt of its
// `urn:view:` URI, which keeps a URI without a host as it is but lower-cased and without a path's
// trailing slash (rows `urn:` of test/fixtures/surt-keys.json); pywb looks a urn up by the same key.

let site: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const cdxj = tmp.path('site.cdxj');
let keys: Map<string, string>;

beforeAll(async () => {
  site = await startServer(routes({ '/': html('<a href="/Docs/Guide/">guide</a>', 'Home'), '/Docs/Guide/': html('guide', 'Guide') }));
  expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  addScreenshot(db, site.url, solidPng(4, 4, [1, 2, 3]));
  addScreenshot(db, `${site.url}Docs/Guide/`, solidPng(4, 4, [3, 2, 1]));
  expect(await execCli(['export', db, '--warc', tmp.path('site.warc.gz'), '--cdxj', cdxj, '-q'])).toMatchObject({ code: 0, stderr: '' });
  keys = cdxjKeysByUrl(cdxj);
});

afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

describe("a screenshot's CDXJ key", () => {
  it('is its urn:view: URI as surt gives it: lower-cased, without a trailing slash', () => {
    expect(keys.get(`urn:view:${site.url}`)).toBe(`urn:view:http://127.0.0.1:${site.port}`);
    expect(keys.get(`urn:view:${site.url}Docs/Guide/`)).toBe(`urn:view:http://127.0.0.1:${site.port}/docs/guide`);
  });
});
