import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { EXPORT_CRAWL_FLAGS, startExportSite } from './support/export-site.js';
import type { TestServer } from './support/test-server.js';

// crawl → export → import: the imported archive holds the crawl's pages (url, status, content type, body, the
// wire kept with them) and its links, whatever the coding of the bodies (gzip, br, chunked), their bytes
// (all 256 values, empty, GBK) or their status (301 and its target, 404), with duplicate bodies as revisits.

let server: TestServer;
const tmp = tempDir();
const crawled = tmp.path('crawled.sqlite');
const imported = tmp.path('imported.sqlite');
const warc = tmp.path('site.warc.gz');

const PAGES = `SELECT url, status, content_type, hex(body) AS body, kind, headers, http_version, reason, hex(raw_headers) AS raw_headers,
                      request_method, request_target, remote_ip, sha1
               FROM pages ORDER BY url`;
const LINKS = 'SELECT from_url, to_url, kind, nofollow FROM links ORDER BY from_url, to_url, kind';

beforeAll(async () => {
  server = await startExportSite();
  const crawl = await runCli(['crawl', server.url, '--db', crawled, ...EXPORT_CRAWL_FLAGS]);
  expect(crawl.code, crawl.stderr).toBe(0);
  const exported = await execCli(['export', crawled, '--warc', warc, '-q']);
  expect(exported, exported.stderr).toMatchObject({ code: 0, stderr: '' });
  const back = await execCli(['import', warc, '--db', imported, '-q']);
  expect(back, back.stderr).toMatchObject({ code: 0, stderr: '' });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('gives the same pages: url, status, content type, body byte for byte, kind, headers, and the wire as received', () => {
  const before = readArchive<Record<string, unknown>>(crawled, PAGES);
  const after = readArchive<Record<string, unknown>>(imported, PAGES);
  // The site answers in every way an export must carry: a real crawl of it has them all.
  expect(before.map((page) => page.status)).toEqual(expect.arrayContaining([200, 301, 404]));
  expect(before.some((page) => page.body === '')).toBe(true);
  expect(after).toEqual(before);
});

it('gives the same links, read again from the imported bodies by the same parse', () => {
  const before = readArchive(crawled, LINKS);
  expect(before.length).toBeGreaterThan(10);
  expect(readArchive(imported, LINKS)).toEqual(before);
});

it('stores a body that two URLs share once, as the crawl did, though the WARC held it as a revisit', () => {
  const bodies = (db: string) => readArchive<{ n: number }>(db, 'SELECT count(DISTINCT sha256) AS n FROM pages')[0]!.n;
  expect(bodies(imported)).toBe(bodies(crawled));
});
