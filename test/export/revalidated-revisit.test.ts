import { createReadStream } from 'node:fs';
import { WARCParser, type WARCRecord } from 'warcio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { CRAWL_2_AT, makeHistoryArchive, PAGE_B, type HistoryArchive } from '../support/history-site.js';
import { readCdxj } from '../support/cdxj-read.js';

// A page a re-crawl revalidated (the server answered 304) is exported so that pywb and ReplayWeb.page
// replay it with its payload: both take a revisit's status and headers from the revisit's own block and
// never look past a 304 to its original (pywb's ResolvingLoader, wabac's RemoteArchiveDB), so a
// server-not-modified revisit replays as an empty 304. It is an identical-payload-digest revisit naming
// the record with the payload, carrying that response's status line and headers; its CDXJ line says
// status 200 and the payload's digest, and keeps the mime `warc/revisit` that pywb's is_revisit() and
// wabac read as "resolve through WARC-Refers-To".

const IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const warc = tmp.path('site.warc.gz');
const cdxj = tmp.path('site.cdxj');
let site: HistoryArchive;

interface Read {
  record: WARCRecord;
  offset: number;
  payload: Buffer;
}
let captures: Read[];

beforeAll(async () => {
  site = await makeHistoryArchive(db, () => []);
  expect(await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '-q'])).toMatchObject({ code: 0, stderr: '' });
  const parser = new WARCParser(createReadStream(warc));
  captures = [];
  for await (const record of parser) {
    const offset = parser.offset;
    const payload = Buffer.from(await record.readFully(true));
    if ((record.warcType === 'response' || record.warcType === 'revisit') && record.warcTargetURI === `${site.origin}/b`)
      captures.push({ record, offset, payload });
  }
});

afterAll(() => tmp.cleanup());

describe('a revalidated capture in an export', () => {
  it("is an identical-payload-digest revisit of the record holding its payload, with that response's status line and headers", () => {
    const [original, revalidated] = captures;
    expect(original!.record.warcType).toBe('response');
    expect(original!.payload.toString()).toBe(String(PAGE_B.body));
    const revisit = revalidated!.record;
    expect(revisit.warcType).toBe('revisit');
    expect(revisit.warcDate).toBe(CRAWL_2_AT);
    expect(revisit.warcHeader('WARC-Profile')).toBe(IDENTICAL);
    expect(revisit.warcHeader('WARC-Refers-To')).toBe(original!.record.warcHeader('WARC-Record-ID'));
    expect(revisit.warcRefersToTargetURI).toBe(`${site.origin}/b`);
    expect(revisit.warcRefersToDate).toBe(original!.record.warcDate);
    expect(revisit.warcPayloadDigest).toBe(original!.record.warcPayloadDigest);
    expect(revisit.httpHeaders!.statusCode).toBe(200);
    expect(revisit.httpHeaders!.statusText).toBe('OK');
    expect(revisit.httpHeaders!.headers.get('content-type')).toBe(original!.record.httpHeaders!.headers.get('content-type'));
    // The payload replay streams from the original is the length this block announces.
    expect(Number(revisit.httpHeaders!.headers.get('content-length'))).toBe(original!.payload.length);
    expect(revalidated!.payload.length).toBe(0);
  });

  it('is indexed with status 200 and the payload digest', () => {
    const lines = readCdxj(cdxj)
      .map((line) => line.json)
      .filter((fields) => fields.url === `${site.origin}/b`);
    const [original, revalidated] = captures;
    const line = lines.find((fields) => Number(fields.offset) === revalidated!.offset)!;
    expect(line).toMatchObject({
      mime: 'warc/revisit',
      status: '200',
      digest: original!.record.warcPayloadDigest!.slice('sha1:'.length),
    });
    expect(lines.find((fields) => Number(fields.offset) === original!.offset)).toMatchObject({ mime: 'text/html', status: '200' });
  });
});
