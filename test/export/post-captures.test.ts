import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { CDXIndexer } from 'warcio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, readArchive } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';
import { startReplayServer } from '../support/replay-server.js';
import { readWarc } from '../support/warc-read.js';
import { readCdxj } from '../support/cdxj-read.js';

// Answers to POSTs, imported from a WARC, exported with the keys pywb computes for them (the expected
// keys are rows of test/fixtures/post-keys.json, computed by pywb's own code), each line's method and
// requestBody as warcio.js's indexer writes them; a request body sent chunked is stored, written and
// keyed without its framing, and crawlite's own replay still answers the POST a browser sends again.

interface Row {
  name: string;
  url: string;
  contentType: string;
  body: string;
  pywb: { key: string };
}
const rows = (JSON.parse(readFileSync(new URL('../fixtures/post-keys.json', import.meta.url), 'utf8')) as { rows: Row[] }).rows;
const row = (name: string) => rows.find((each) => each.name === name)!;
const JSON_ROW = row('json id');
const MULTIPART_ROW = row('multipart fields');
const FORM_ROW = row('form');
const FORM_BODY = Buffer.from(FORM_ROW.body, 'base64').toString();
// The same form, sent chunked, cut in three.
const CHUNKED = `7\r\n${FORM_BODY.slice(0, 7)}\r\n9\r\n${FORM_BODY.slice(7, 16)}\r\n${(FORM_BODY.length - 16).toString(16)}\r\n${FORM_BODY.slice(16)}\r\n0\r\n\r\n`;
const AT = '2024-06-01T00:00:00Z';

const request = (row: Row, head: string, body: Buffer): Buffer => {
  const url = new URL(row.url);
  return Buffer.concat([
    Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${row.contentType}\r\n${head}\r\n`, 'latin1'),
    body,
  ]);
};

const tmp = tempDir();
const db = tmp.path('posts.sqlite');
const warc = tmp.path('out.warc.gz');
const cdxj = tmp.path('out.cdxj');
let lines: Array<{ key: string; json: Record<string, string> }>;

beforeAll(async () => {
  const input = tmp.path('posts.warc');
  const pair = (row: Row, requestBlock: Buffer, answer: string) => [
    rawRecord('request', row.url, AT, requestBlock),
    rawRecord('response', row.url, AT, httpResponse('application/json', answer)),
  ];
  const body = (row: Row) => Buffer.from(row.body, 'base64');
  writeFileSync(
    input,
    Buffer.concat([
      ...pair(JSON_ROW, request(JSON_ROW, `Content-Length: ${body(JSON_ROW).length}\r\n`, body(JSON_ROW)), '{"item":2}'),
      ...pair(
        MULTIPART_ROW,
        request(MULTIPART_ROW, `Content-Length: ${body(MULTIPART_ROW).length}\r\n`, body(MULTIPART_ROW)),
        '{"uploaded":true}',
      ),
      ...pair(FORM_ROW, request(FORM_ROW, 'Transfer-Encoding: chunked\r\n', Buffer.from(CHUNKED)), '{"results":[]}'),
    ]),
  );
  const imported = await runCli(['import', input, '--db', db]);
  expect(imported.code, imported.stderr).toBe(0);
  expect(await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '-q'])).toEqual({ code: 0, stdout: '', stderr: '' });
  lines = readCdxj(cdxj);
});

afterAll(() => tmp.cleanup());

const lineOf = (row: Row) => lines.find((line) => line.json.url === row.url)!;

describe('POST captures in an export', () => {
  it("are keyed as pywb keys them: JSON's members, a multipart form's fields, a form's fields", () => {
    expect(lineOf(JSON_ROW).key).toBe('com,example)/api?__wb_method=post&id=2');
    expect(lineOf(JSON_ROW).key).toBe(JSON_ROW.pywb.key);
    expect(lineOf(MULTIPART_ROW).key).toBe(MULTIPART_ROW.pywb.key);
    expect(lineOf(FORM_ROW).key).toBe(FORM_ROW.pywb.key);
  });

  it("say the method and requestBody warcio.js's indexer says", async () => {
    const indexer = new CDXIndexer({ format: 'cdxj' });
    const theirs = new Map<string, Record<string, unknown>>();
    for await (const result of indexer.iterIndex([{ filename: 'out.warc.gz', reader: createReadStream(warc) }]))
      theirs.set(result.url as string, result);
    for (const each of [JSON_ROW, MULTIPART_ROW, FORM_ROW]) {
      expect(lineOf(each).json.method).toBe('POST');
      expect(lineOf(each).json.requestBody).toBe(theirs.get(each.url)!.requestBody);
    }
    expect(lineOf(JSON_ROW).json.requestBody).toBe('id=2');
    expect(lineOf(FORM_ROW).json.requestBody).toBe(FORM_BODY);
  });

  it('store, write and key a chunked request body without its framing, and import it back as sent', async () => {
    expect(readArchive(db, 'SELECT request_body FROM captures WHERE url = ?', FORM_ROW.url)).toEqual([
      { request_body: Buffer.from(FORM_BODY) },
    ]);
    const sent = (await readWarc(warc)).find((record) => record.type === 'request' && record.field('WARC-Target-URI') === FORM_ROW.url)!;
    expect(sent.payload!.toString()).toBe(FORM_BODY);
    const head = sent.httpHead!.toString('latin1');
    expect(head).toContain('\r\nX-Crawlite-Original-Transfer-Encoding: chunked\r\n');
    expect(head).toContain(`\r\nContent-Length: ${FORM_BODY.length}\r\n`);
    expect(head).not.toMatch(/\r\nTransfer-Encoding:/i);

    const again = tmp.path('again.sqlite');
    expect((await runCli(['import', warc, '--db', again])).code).toBe(0);
    const requestOf = (file: string) => readArchive(file, 'SELECT request_headers, request_body FROM captures WHERE url = ?', FORM_ROW.url);
    expect(requestOf(again)).toEqual(requestOf(db));
    expect(String(requestOf(again)[0]!.request_headers)).toContain('Transfer-Encoding: chunked');
  });

  it('leave crawlite replay answering the POST a browser sends again, the chunked one included', async () => {
    const replay = await startReplayServer(db);
    try {
      for (const [each, answer] of [
        [JSON_ROW, { item: 2 }],
        [FORM_ROW, { results: [] }],
      ] as const) {
        const posted = await fetch(`${replay.origin}/20240601000000id_/${each.url}`, {
          method: 'POST',
          headers: { 'content-type': each.contentType },
          body: Buffer.from(each === FORM_ROW ? Buffer.from(FORM_BODY) : Buffer.from(each.body, 'base64')),
        });
        expect(posted.status).toBe(200);
        expect(await posted.json()).toEqual(answer);
      }
    } finally {
      await replay.close();
    }
  });
});
