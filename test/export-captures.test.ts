import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import {
  CRAWL_2_AT,
  CRAWL_3_AT,
  makeHistoryArchive,
  PAGE_A1,
  PAGE_A2,
  PAGE_A3,
  PAGE_B,
  type HistoryArchive,
} from './support/history-site.js';
import { readWarc, type ReadRecord } from './support/warc-read.js';
import { readZip } from './support/zip-read.js';

// An archive re-crawled twice exports every capture, oldest first per URL: a
// payload the URL's previous capture already wrote is a revisit
// (identical-payload-digest), a 304 such a revisit too, with its original's
// header block; the index marks revisits as pywb does; the WACZ's pages
// stay one line per URL; and crawlite import reads the WARC back.

const IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

const tmp = tempDir();
const db = tmp.path('site.sqlite');
const warc = tmp.path('site.warc.gz');
const cdxj = tmp.path('site.cdxj');
const wacz = tmp.path('site.wacz');
let site: HistoryArchive;
let records: ReadRecord[];

beforeAll(async () => {
  site = await makeHistoryArchive(db, () => []);
  const exported = await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '--wacz', wacz, '-q']);
  expect(exported, exported.stderr).toMatchObject({ code: 0, stderr: '' });
  records = await readWarc(warc);
});

afterAll(() => tmp.cleanup());

/** The response and revisit records of one path, in file order. */
const capturesOf = (path: string) =>
  records.filter(
    (record) => (record.type === 'response' || record.type === 'revisit') && record.field('WARC-Target-URI') === `${site.origin}${path}`,
  );

const bodyOf = (html: { body?: string | Buffer }) => String(html.body);

describe('export of an archive with history', () => {
  it('writes every capture of a URL, oldest first, each with its request', () => {
    const a = capturesOf('/a');
    expect(a.map((record) => record.type)).toEqual(['response', 'response', 'response']);
    expect(a.map((record) => record.payload!.toString())).toEqual([PAGE_A1, PAGE_A2, PAGE_A3].map(bodyOf));
    expect(a.slice(1).map((record) => record.field('WARC-Date'))).toEqual([CRAWL_2_AT, CRAWL_3_AT]);
    for (const record of a) {
      const request = records.find(
        (other) => other.type === 'request' && other.field('WARC-Concurrent-To') === record.field('WARC-Record-ID'),
      );
      expect(request?.field('WARC-Date')).toBe(record.field('WARC-Date'));
    }
    // One outlinks record per URL: the latest capture's.
    expect(records.filter((record) => record.type === 'metadata' && record.field('WARC-Target-URI') === `${site.origin}/a`)).toHaveLength(
      1,
    );
  });

  it('orders the records by URL, then time', () => {
    const keys = records
      .filter((record) => record.type === 'response' || record.type === 'revisit')
      .map((record) => [record.field('WARC-Target-URI')!, record.field('WARC-Date')!] as const);
    const sorted = [...keys].sort(([u1, d1], [u2, d2]) => (u1 < u2 ? -1 : u1 > u2 ? 1 : d1 < d2 ? -1 : d1 > d2 ? 1 : 0));
    expect(keys).toEqual(sorted);
    expect(keys.length).toBe(readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM captures')[0]!.n);
  });

  it('writes a payload the previous capture wrote as an identical-payload-digest revisit: the header block only', () => {
    const [first, second, third] = capturesOf('/c');
    expect(first!.type).toBe('response');
    for (const revisit of [second!, third!]) {
      expect(revisit.type).toBe('revisit');
      expect(revisit.field('WARC-Profile')).toBe(IDENTICAL);
      expect(revisit.field('WARC-Refers-To')).toBe(first!.field('WARC-Record-ID'));
      expect(revisit.field('WARC-Refers-To-Target-URI')).toBe(`${site.origin}/c`);
      expect(revisit.field('WARC-Refers-To-Date')).toBe(first!.field('WARC-Date'));
      expect(revisit.field('WARC-Payload-Digest')).toBe(first!.field('WARC-Payload-Digest'));
      expect(revisit.httpStatus).toBe(200);
      expect(revisit.payload!.length).toBe(0);
    }
  });

  it("writes a 304 as an identical-payload-digest revisit with its original's header block", () => {
    const [first, notModified, again] = capturesOf('/b');
    expect(first!.type).toBe('response');
    expect(first!.payload!.toString()).toBe(bodyOf(PAGE_B));
    expect(notModified!.type).toBe('revisit');
    expect(notModified!.field('WARC-Profile')).toBe(IDENTICAL);
    expect(notModified!.field('WARC-Refers-To')).toBe(first!.field('WARC-Record-ID'));
    expect(notModified!.field('WARC-Refers-To-Target-URI')).toBe(`${site.origin}/b`);
    expect(notModified!.field('WARC-Refers-To-Date')).toBe(first!.field('WARC-Date'));
    expect(notModified!.field('WARC-Payload-Digest')).toBe(first!.field('WARC-Payload-Digest'));
    expect(notModified!.httpHead!.toString('latin1')).toBe(first!.httpHead!.toString('latin1'));
    expect(notModified!.payload!.length).toBe(0);
    // Fetched again with the same body after the 304: a revisit of the record that holds the payload.
    expect(again!.field('WARC-Profile')).toBe(IDENTICAL);
    expect(again!.field('WARC-Refers-To')).toBe(first!.field('WARC-Record-ID'));
  });

  it("indexes revisits as warc/revisit, a 304 with its original's status", () => {
    const lines = readFileSync(cdxj, 'utf8').trim().split('\n');
    const of = (path: string) =>
      lines
        .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as Record<string, string>)
        .filter((fields) => fields.url === `${site.origin}${path}`);
    expect(of('/b').map((fields) => [fields.mime, fields.status])).toEqual([
      ['text/html', '200'],
      ['warc/revisit', '200'],
      ['warc/revisit', '200'],
    ]);
    expect(of('/a').map((fields) => fields.mime)).toEqual(['text/html', 'text/html', 'text/html']);
    expect(lines).toHaveLength(records.filter((record) => record.type === 'response' || record.type === 'revisit').length);
  });

  it("keeps the WACZ's pages.jsonl to one line per URL, its latest capture", () => {
    const pages = readZip(readFileSync(wacz))
      .find((entry) => entry.name === 'pages/pages.jsonl')!
      .data()
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as { url: string; ts: string });
    const urls = pages.map((page) => page.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(pages.find((page) => page.url === `${site.origin}/a`)?.ts).toBe(CRAWL_3_AT);
  });

  it("imports back: every capture, the latest as each URL's page, a 304 resolved to its payload", async () => {
    const imported = tmp.path('imported.sqlite');
    const back = await execCli(['import', warc, '--db', imported]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).not.toMatch(/skipped/i);
    // Every capture comes back, in time order per URL, each with its payload.
    const all = 'SELECT url, fetched_at, status, sha256 FROM captures ORDER BY url, fetched_at';
    expect(readArchive(imported, all)).toEqual(readArchive(db, all));
    const latest = 'SELECT url, status, hex(body) AS body, fetched_at FROM pages ORDER BY url';
    expect(readArchive(imported, latest)).toEqual(readArchive(db, latest));
  });
});
