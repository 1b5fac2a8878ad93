import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { EXPORT_CRAWL_FLAGS, startExportSite } from '../support/export-site.js';
import type { TestServer } from '../support/test-server.js';

// crawl → export --wacz → import: the archive imported from crawlite's own WACZ holds the crawl's pages,
// captures and bodies, with their kinds and depths.

let server: TestServer;
const tmp = tempDir();
const crawled = tmp.path('crawled.sqlite');
const imported = tmp.path('imported.sqlite');
const wacz = tmp.path('site.wacz');
let report = '';

const PAGES = `SELECT url, status, content_type, hex(body) AS body, kind, depth, headers, http_version, reason, hex(raw_headers) AS raw_headers,
                      request_method, request_target, remote_ip, sha1, title
               FROM pages ORDER BY url`;
const CAPTURES = 'SELECT url, fetched_at, status, sha256, size, kind, latest FROM captures ORDER BY url, fetched_at';

beforeAll(async () => {
  server = await startExportSite();
  const crawl = await runCli(['crawl', server.url, '--db', crawled, ...EXPORT_CRAWL_FLAGS]);
  expect(crawl.code, crawl.stderr).toBe(0);
  const exported = await execCli(['export', crawled, '--wacz', wacz, '-q']);
  expect(exported, exported.stderr).toMatchObject({ code: 0, stderr: '' });
  const back = await execCli(['import', wacz, '--db', imported]);
  expect(back, back.stderr).toMatchObject({ code: 0, stderr: '' });
  report = back.stdout;
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('gives the same pages: url, status, content type, body byte for byte, kind, depth, headers and the wire', () => {
  const before = readArchive<Record<string, unknown>>(crawled, PAGES);
  expect(before.map((page) => page.status)).toEqual(expect.arrayContaining([200, 301, 404]));
  expect(readArchive(imported, PAGES)).toEqual(before);
});

it('gives the same captures and the same bodies', () => {
  const before = readArchive(crawled, CAPTURES);
  expect(before.length).toBeGreaterThan(10);
  expect(readArchive(imported, CAPTURES)).toEqual(before);
  const bodies = 'SELECT lower(hex(hash)) AS sha256, size FROM body ORDER BY 1';
  expect(readArchive(imported, bodies)).toEqual(readArchive(crawled, bodies));
});

it("says how many of the responses imported the WACZ's pages.jsonl lists", () => {
  const listed = readArchive<{ n: number }>(
    crawled,
    "SELECT count(*) AS n FROM pages WHERE kind = 'page' AND status BETWEEN 200 AND 299 AND content_type LIKE 'text/html%'",
  )[0]!.n;
  expect(listed).toBeGreaterThan(2);
  expect(report).toContain(`from 1 WARC file:`);
  expect(report).toContain(`listed as pages by the WACZ (pages.jsonl): ${listed} responses`);
});
