import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { httpGet } from '../support/http-get.js';
import { rawRecord } from '../support/raw-warc.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';
import { readWarc } from '../support/warc-read.js';

// A `resource` record of an http(s) URL is a capture: a payload stored without its HTTP message (warcit,
// Webrecorder's static snapshots, wget's httpbin fetch in pywb's sample archive). pywb and warcio serve
// its block as a 200 with the record's Content-Type, and so does crawlite: imported, replayed, and
// exported as a response record with that status and type, which pywb replays like any other.

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/warc/${name}`, import.meta.url));
const JSON_BODY = '{\n  "args": {},\n  "url": "http://httpbin.example/anything/resource.json"\n}\n';
const JSON_URL = 'http://httpbin.example/anything/resource.json';

const tmp = tempDir();
const db = tmp.path('resources.sqlite');
let replay: ReplayServer;

interface Page {
  status: number;
  content_type: string | null;
  body: Buffer;
  fetched_at: string;
  http_version: string | null;
  raw_headers: Buffer | null;
}
const pageOf = (url: string) =>
  readArchive<Page>(db, 'SELECT status, content_type, body, fetched_at, http_version, raw_headers FROM pages WHERE url = ?', url)[0];

beforeAll(async () => {
  // The shape of pywb's httpbin-resource.warc.gz: one resource record, its block the JSON as fetched.
  const httpbin = tmp.path('httpbin-resource.warc');
  writeFileSync(
    httpbin,
    rawRecord('resource', JSON_URL, '2017-11-30T22:09:04Z', JSON_BODY, {
      'WARC-Source-URI': 'file://./httpbin.example/anything/resource.json',
      'Content-Type': 'application/json',
    }),
  );
  // A resource of a URN (wget's manifest and log are metadata:// ones) is no capture.
  const urn = tmp.path('urn-resource.warc');
  writeFileSync(urn, rawRecord('resource', 'urn:x-wget:log', '2017-11-30T22:09:05Z', 'a log', { 'Content-Type': 'text/plain' }));
  for (const file of [fixture('warcio-example-resource.warc.gz'), fixture('py-wacz-example-resource.warc.gz'), httpbin, urn]) {
    const result = await runCli(['import', file, '--db', db]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }
  replay = await startReplayServer(db);
});

afterAll(async () => {
  await replay?.close();
  tmp.cleanup();
});

describe('resource records of http(s) URLs', () => {
  it('are captures: status 200, the Content-Type the record gives, the block as body, no HTTP message recorded', () => {
    const json = pageOf(JSON_URL);
    expect(json).toMatchObject({ status: 200, content_type: 'application/json', fetched_at: '2017-11-30T22:09:04.000Z' });
    expect(json!.body.toString()).toBe(JSON_BODY);
    expect(json!.http_version).toBeNull();
    expect(json!.raw_headers).toBeNull();
    // warcio's example-resource.warc.gz: Webrecorder's static snapshot of example.com, 1303 bytes of HTML.
    const snapshot = pageOf('http://example.com/');
    expect(snapshot).toMatchObject({ status: 200, content_type: 'text/html; charset=utf-8' });
    expect(snapshot!.body.byteLength).toBe(1303);
    expect(snapshot!.body.toString()).toContain('<title>Example Domain</title>');
  });

  it('a revisit of a resource (py-wacz: warcit wrote index.html, then / as its revisit) gets its payload', () => {
    const index = pageOf('https://example.com/index.html');
    expect(index).toMatchObject({ status: 200, content_type: 'text/html' });
    expect(index!.body.byteLength).toBe(1270);
    const root = pageOf('https://example.com/');
    expect(root).toMatchObject({ status: 200, content_type: 'text/html' });
    expect(Buffer.compare(root!.body, index!.body)).toBe(0);
  });

  it('are marked `resource` in capture_notes; a resource of a URN is passed over', () => {
    expect(readArchive(db, 'SELECT url, note FROM capture_notes ORDER BY url')).toEqual([
      { url: 'http://example.com/', note: 'resource' },
      { url: JSON_URL, note: 'resource' },
      { url: 'https://example.com/index.html', note: 'resource' },
    ]);
    expect(readArchive(db, "SELECT count(*) AS n FROM urls WHERE url LIKE 'urn:%'")).toEqual([{ n: 0 }]);
  });

  it('replay serves the block with the record’s Content-Type', async () => {
    const res = await httpGet(replay.origin, `/${captureTimestamp(pageOf(JSON_URL)!.fetched_at)}id_/${JSON_URL}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.toString()).toBe(JSON_BODY);
  });

  it('export writes each as a response record warcio reads: status 200, the Content-Type, the block as payload', async () => {
    const warc = tmp.path('resources-out.warc.gz');
    const result = await runCli(['export', db, '--warc', warc]);
    expect(result.code, result.stderr).toBe(0);
    const records = await readWarc(warc);
    const json = records.find((record) => record.type === 'response' && record.field('WARC-Target-URI') === JSON_URL)!;
    expect(json.httpStatus).toBe(200);
    expect(json.httpHeaders).toContainEqual(['content-type', 'application/json']);
    expect(json.payload?.toString()).toBe(JSON_BODY);
    expect(json.field('WARC-Date')).toBe('2017-11-30T22:09:04.000Z');
  });
});
