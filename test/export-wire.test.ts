import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha1Digest } from '../src/export/warc-digest.js';
import { readArchive, tempDir, PAGES_VIEW_OF_SCHEMA_4 } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { EXPORT_CRAWL_FLAGS, GZIP_PAGE, startExportSite } from './support/export-site.js';
import type { TestServer } from './support/test-server.js';
import { readWarc, type ReadRecord } from './support/warc-read.js';

// What the response and request blocks are made of: the header blocks as
// received and sent when the archive has them, rebuilt from its JSON headers
// when it has not (responses stored before, archives of an older schema).

let server: TestServer;
const tmp = tempDir();
const crawled = tmp.path('crawled.sqlite');

const WIRE_NULL = `UPDATE response SET http_version = NULL, reason = NULL, raw_headers = NULL, request_method = NULL,
  request_target = NULL, request_headers = NULL, remote_ip = NULL, started_at = NULL`;

/** A copy of the crawled archive changed by `sql`, exported; its records. */
async function exportVariant(name: string, change: (db: Database.Database) => void): Promise<ReadRecord[]> {
  const db = tmp.path(`${name}.sqlite`);
  copyFileSync(crawled, db);
  const handle = new Database(db);
  try {
    change(handle);
  } finally {
    handle.close();
  }
  const warc = tmp.path(`${name}.warc.gz`);
  const result = await execCli(['export', db, '--warc', warc, '-q']);
  expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  return readWarc(warc);
}

const urlOf = (path: string) => new URL(path, server.url).href;
const response = (records: ReadRecord[], path: string) =>
  records.find((r) => r.type === 'response' && r.field('WARC-Target-URI') === urlOf(path))!;
const requestOf = (records: ReadRecord[], record: ReadRecord) =>
  records.find((r) => r.field('WARC-Record-ID') === record.field('WARC-Concurrent-To'))!;

beforeAll(async () => {
  server = await startExportSite();
  const crawl = await runCli(['crawl', server.url, '--db', crawled, ...EXPORT_CRAWL_FLAGS]);
  expect(crawl.stderr).toBe('');
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('crawlite export: HTTP header blocks', () => {
  it('uses the header blocks as received and sent, order and case kept, with the codings and length fixed', async () => {
    const records = await exportVariant('recorded', (db) => {
      db.exec(WIRE_NULL);
      const raw =
        'Content-Type: text/html\r\nContent-Encoding: gzip\r\nX-First: 1\r\ncontent-length: 123\r\nx-lower: kept\r\nTransfer-Encoding: chunked\r\n';
      db.prepare(
        `UPDATE response SET http_version = 'HTTP/1.0', reason = 'Fine', raw_headers = ?, request_method = 'GET', request_target = '/gzip',
           request_headers = ?, remote_ip = '127.0.0.1', started_at = fetched_at
         WHERE url_id = (SELECT id FROM url WHERE url = ?)`,
      ).run(
        Buffer.from(raw, 'latin1'),
        Buffer.from(`Host: ${new URL(server.url).host}\r\nUser-Agent: test-agent\r\nAccept: */*\r\n`),
        urlOf('/gzip'),
      );
    });
    const gzip = response(records, '/gzip');
    const length = Buffer.byteLength(GZIP_PAGE);
    expect(gzip.httpHead!.toString('latin1')).toBe(
      'HTTP/1.0 200 Fine\r\nContent-Type: text/html\r\nX-Crawlite-Original-Content-Encoding: gzip\r\nX-First: 1\r\n' +
        `content-length: ${length}\r\nX-Crawlite-Original-Content-Length: 123\r\nx-lower: kept\r\nX-Crawlite-Original-Transfer-Encoding: chunked\r\n\r\n`,
    );
    expect(gzip.payload!.toString()).toBe(GZIP_PAGE);
    expect(gzip.field('WARC-IP-Address')).toBe('127.0.0.1');
    expect(gzip.field('Crawlite-Headers')).toBeUndefined();
    const request = requestOf(records, gzip);
    expect(request.block.toString('latin1')).toBe(
      `GET /gzip HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nUser-Agent: test-agent\r\nAccept: */*\r\n\r\n`,
    );
    expect(request.field('Crawlite-Headers')).toBeUndefined();
    // The others were not recorded: rebuilt, and counted as such.
    const total = readArchive<{ n: number }>(crawled, 'SELECT count(*) AS n FROM pages')[0]!.n;
    expect(records[0]!.block.toString()).toContain(
      `crawlite-http-headers: as received for 1 of ${total} responses; rebuilt for ${total - 1}`,
    );
    expect(response(records, '/').field('Crawlite-Headers')).toBe('rebuilt');
  });

  it('rebuilds header blocks from the JSON headers when the wire columns are NULL, and says so', async () => {
    const records = await exportVariant('rebuilt', (db) => db.exec(WIRE_NULL));
    const total = readArchive<{ n: number }>(crawled, 'SELECT count(*) AS n FROM pages')[0]!.n;
    expect(records[0]!.block.toString()).toContain(`crawlite-http-headers: as received for 0 of ${total} responses; rebuilt for ${total}`);
    const gzip = response(records, '/gzip');
    expect(gzip.field('Crawlite-Headers')).toBe('rebuilt');
    expect(gzip.field('WARC-IP-Address')).toBeUndefined();
    const head = gzip.httpHead!.toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain('content-type: text/html; charset=utf-8\r\n');
    // The prefix keeps the name as it stood: here the stored lower-case one.
    expect(head).toContain('X-Crawlite-Original-content-encoding: gzip\r\n');
    expect(head).toContain(`content-length: ${Buffer.byteLength(GZIP_PAGE)}\r\n`);
    expect(head).not.toMatch(/^content-encoding:/im);
    expect(response(records, '/missing').httpHead!.toString('latin1')).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    const request = requestOf(records, gzip);
    expect(request.block.toString('latin1')).toBe(`GET /gzip HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n\r\n`);
    expect(request.field('Crawlite-Headers')).toBe('rebuilt');
    for (const record of records) expect(record.field('WARC-Block-Digest')).toBe(sha1Digest(record.block));
    expect(gzip.field('WARC-Payload-Digest')).toBe(sha1Digest(Buffer.from(GZIP_PAGE)));
  });

  it('exports an archive of an older schema, without the wire columns, rebuilding every block', async () => {
    const records = await exportVariant('schema4', (db) => {
      db.exec(PAGES_VIEW_OF_SCHEMA_4);
    });
    const pages = readArchive<{ fetch_url: string; body: Buffer }>(crawled, "SELECT fetch_url, body FROM pages WHERE body <> x''");
    expect(records[0]!.block.toString()).toContain('crawlite-http-headers: as received for 0 of');
    for (const page of pages) {
      const record = records.find((r) => r.type === 'response' && r.field('WARC-Target-URI') === page.fetch_url);
      if (record) expect(record.field('WARC-Payload-Digest')).toBe(sha1Digest(page.body));
    }
    expect(response(records, '/gzip').field('Crawlite-Headers')).toBe('rebuilt');
  });
});
