import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { httpGet } from '../support/http-get.js';
import { rawRecord } from '../support/raw-warc.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';
import { readWarc } from '../support/warc-read.js';

// A response whose body a recorder stored already decoded under the Content-Encoding header as received
// (browser-based recorders do: py-wacz's example-warcinfo-metadata.warc) is kept as stored, as warcio and
// pywb read it, and marked in the view capture_notes; replay and export describe the body as it is.

const FIXTURE = fileURLToPath(new URL('../fixtures/warc/py-wacz-example-warcinfo-metadata.warc', import.meta.url));
const SITE = 'http://site.example';
const DATE = '2024-05-01T10:00:00Z';
const PAGE = '<!doctype html><title>plain</title><p>stored decoded under a gzip header</p>';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** A 200 whose header says `encoding` and whose body is these bytes. */
const encodedResponse = (encoding: string, body: Buffer) =>
  Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${body.length}\r\n\r\n`),
    body,
  ]);

const bodyOf = (db: string, url: string) => readArchive<{ body: Buffer }>(db, 'SELECT body FROM pages WHERE url = ?', url)[0]?.body;
const notesOf = (db: string) =>
  readArchive<{ url: string; note: string }>(db, 'SELECT url, note FROM capture_notes ORDER BY url, note').map((row) => [
    row.url,
    row.note,
  ]);

async function importInto(db: string, file: string): Promise<void> {
  const result = await runCli(['import', file, '--db', db]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

describe("py-wacz's example-warcinfo-metadata.warc", () => {
  const db = tmp.path('py-wacz.sqlite');

  beforeAll(() => importInto(db, FIXTURE));

  it('imports its one response with the body as stored, as warcio reads it, and the headers as recorded', () => {
    const [page] = readArchive<{ status: number; body: Buffer; headers: string; fetched_at: string }>(
      db,
      'SELECT status, body, headers, fetched_at FROM pages WHERE url = ?',
      'https://example.com/',
    );
    expect(page?.status).toBe(200);
    expect(page?.fetched_at).toBe('2020-11-13T01:38:39.772Z');
    // warcio's content_stream(): 1256 bytes of HTML, the record's payload as it is.
    expect(page?.body.byteLength).toBe(1256);
    expect(page?.body.toString('utf8')).toMatch(/^<!doctype html>[\s\S]*<title>Example Domain<\/title>/);
    expect(JSON.parse(page!.headers)).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/html; charset=UTF-8' });
  });

  it('marks the capture: its body is not encoded as its headers say', () => {
    expect(readArchive(db, 'SELECT n.note FROM capture_notes n JOIN pages p ON p.url = n.url AND p.fetched_at = n.fetched_at')).toEqual([
      { note: 'not-encoded' },
    ]);
  });
});

describe('bodies that do not decode as their Content-Encoding says', () => {
  const db = tmp.path('shapes.sqlite');
  // Each its own body, so that an export writes each as a response, none as a revisit of another.
  const html = (encoding: string) => Buffer.from(`${PAGE}<!-- ${encoding} -->`);
  const gzipped = gzipSync(Buffer.from(`<!doctype html><p>${'a long page, '.repeat(2000)}</p>`));
  // A gzip stream damaged after its first part: what decodes before the damage is kept.
  const damaged = Buffer.concat([gzipped.subarray(0, 200), Buffer.alloc(400, 0xff), gzipped.subarray(600)]);
  let replay: ReplayServer;

  beforeAll(async () => {
    const file = tmp.path('shapes.warc');
    writeFileSync(
      file,
      Buffer.concat([
        rawRecord('response', `${SITE}/plain-gzip`, DATE, encodedResponse('gzip', html('gzip'))),
        rawRecord('response', `${SITE}/plain-br`, DATE, encodedResponse('br', html('br'))),
        rawRecord('response', `${SITE}/plain-deflate`, DATE, encodedResponse('deflate', html('deflate'))),
        rawRecord('response', `${SITE}/real-gzip`, DATE, encodedResponse('gzip', gzipped)),
        rawRecord('response', `${SITE}/damaged-gzip`, DATE, encodedResponse('gzip', damaged)),
      ]),
    );
    await importInto(db, file);
    replay = await startReplayServer(db);
  });

  afterAll(() => replay?.close());

  it('keeps each as stored (gzip, br, deflate), a damaged gzip stream as far as it decodes, and marks them; an encoded body is decoded, unmarked', () => {
    for (const coding of ['gzip', 'br', 'deflate']) expect(bodyOf(db, `${SITE}/plain-${coding}`)).toEqual(html(coding));
    expect(bodyOf(db, `${SITE}/real-gzip`)?.toString()).toMatch(/^<!doctype html><p>a long page, a long page, /);
    const partial = bodyOf(db, `${SITE}/damaged-gzip`)!;
    expect(partial.byteLength).toBeGreaterThan(0);
    expect(partial.toString('latin1')).toMatch(/^<!doctype html><p>a long page, /);
    expect(notesOf(db)).toEqual([
      [`${SITE}/damaged-gzip`, 'partly-decoded'],
      [`${SITE}/plain-br`, 'not-encoded'],
      [`${SITE}/plain-deflate`, 'not-encoded'],
      [`${SITE}/plain-gzip`, 'not-encoded'],
    ]);
  });

  it('replays the body as stored, without a Content-Encoding', async () => {
    const [page] = readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', `${SITE}/plain-gzip`);
    const res = await httpGet(replay.origin, `/${captureTimestamp(page!.fetched_at)}id_/${SITE}/plain-gzip`);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toContain('stored decoded under a gzip header');
  });

  it('exports a response warcio reads with the body as stored, its Content-Encoding as received kept aside', async () => {
    const warc = tmp.path('shapes-out.warc.gz');
    const result = await runCli(['export', db, '--warc', warc]);
    expect(result.code, result.stderr).toBe(0);
    const record = (await readWarc(warc)).find((r) => r.type === 'response' && r.field('WARC-Target-URI') === `${SITE}/plain-gzip`)!;
    expect(record.payload).toEqual(html('gzip'));
    const names = record.httpHeaders!.map(([name]) => name.toLowerCase());
    expect(names).not.toContain('content-encoding');
    expect(record.httpHeaders).toContainEqual(['x-crawlite-original-content-encoding', 'gzip']);
  });
});
