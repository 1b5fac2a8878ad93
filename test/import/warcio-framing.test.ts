import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';

// Files warcio reads are read: lines ending CRCRLF (the shape of pywb's missing-status-text.warc, whose
// every line, WARC header and HTTP alike, ends so), and a record whose Content-Length counts the CRLFs
// after it, so the next record's version line follows at once (webarchive-commons' link-extraction-test.warc;
// some writers' warcinfo). The same records, status, headers and body as python warcio reads.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function importFile(file: string, db: string): Promise<{ stdout: string }> {
  const result = await runCli(['import', file, '--db', db]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
}

describe('lines ending CRCRLF', () => {
  it('reads the record and its HTTP message as warcio does: status 302 without a reason, the headers, an empty body', async () => {
    const http = ['HTTP/1.0 302 ', 'Location: http://www.iana.example/badst', 'Server: BigIP', 'Connection: close', 'Content-Length: 0', '']
      .map((line) => `${line}\r\r\n`)
      .join('');
    const fields = [
      'WARC/1.0',
      'WARC-Type: response',
      'WARC-Record-ID: <urn:uuid:125f3091-65f6-4d0e-96dd-dbff7c551275>',
      'WARC-Date: 2014-01-27T17:12:38Z',
      `Content-Length: ${Buffer.byteLength(http) - 6}`,
      'Content-Type: application/http; msgtype=response',
      'WARC-Target-URI: http://iana.example/bads',
      '',
    ];
    // As in pywb's file: the Content-Length ends before the blank line, which is the record's end.
    const file = tmp.path('crcrlf.warc');
    writeFileSync(file, `${fields.map((line) => `${line}\r\r\n`).join('')}${http}`);
    const db = tmp.path('crcrlf.sqlite');
    await importFile(file, db);
    const [page] = readArchive<{ status: number; reason: string; headers: string; location: string; size: number; raw_headers: Buffer }>(
      db,
      'SELECT status, reason, headers, location, size, raw_headers FROM pages WHERE url = ?',
      'http://iana.example/bads',
    );
    expect(page).toMatchObject({ status: 302, reason: '', location: 'http://www.iana.example/badst', size: 0 });
    expect(JSON.parse(page!.headers)).toEqual({
      location: 'http://www.iana.example/badst',
      server: 'BigIP',
      connection: 'close',
      'content-length': '0',
    });
    // The block is kept as HTTP writes it, so an export writes lines a client reads.
    expect(page!.raw_headers.toString()).toMatch(
      /^Location: http:\/\/www\.iana\.example\/badst\r\nServer: BigIP\r\nConnection: close\r\nContent-Length: 0/,
    );
    expect(page!.raw_headers.toString()).not.toContain('\r\r');
  });
});

describe('a record whose Content-Length counts the CRLFs after it', () => {
  it('is read, and the record right after it too, with no problem reported', async () => {
    const warcinfo = rawRecord('warcinfo', '', '2024-05-01T10:00:00Z', 'software: some writer\r\n\r\n\r\n', {
      'Content-Type': 'application/warc-fields',
    });
    // rawRecord adds two CRLFs after the block: here they are inside the Content-Length, and nothing follows.
    const counted = warcinfo.subarray(0, warcinfo.length - 4);
    const file = tmp.path('counted.warc');
    writeFileSync(
      file,
      Buffer.concat([
        counted,
        rawRecord('response', 'http://site.example/', '2024-05-01T10:00:01Z', httpResponse('text/html', '<p>home</p>')),
      ]),
    );
    const db = tmp.path('counted.sqlite');
    const { stdout } = await importFile(file, db);
    expect(stdout).toContain('2 records read, 1 response imported');
    expect(readArchive(db, 'SELECT url, status FROM pages')).toEqual([{ url: 'http://site.example/', status: 200 }]);
  });

  it("webarchive-commons' link-extraction-test.warc: the responses python warcio reads, with its bodies, and those after", async () => {
    const db = tmp.path('link-extraction.sqlite');
    await importFile(fileURLToPath(new URL('../fixtures/warc/webarchive-commons-link-extraction-test.warc', import.meta.url)), db);
    const pages = readArchive<{ url: string; status: number; size: number; sha256: string }>(
      db,
      'SELECT url, status, size, sha256 FROM pages ORDER BY url',
    );
    // python warcio 1.8.1: these three (poor_html5's Content-Length counts the CRLFs after it), then it stops at the record after.
    expect(pages).toEqual(
      expect.arrayContaining([
        {
          url: 'http://www.example.com/html4.html',
          status: 200,
          size: 1128,
          sha256: '23cac498233117d9b45fbac1908090f43f1f0df9cc6df7790dc239b0cb470533',
        },
        {
          url: 'http://www.example.com/link-extraction-test-html5-video.html',
          status: 200,
          size: 788,
          sha256: 'db174fd57f597cbbd0d60c1249f7d4e5720c911774ce355e294b0a9d327fa2a5',
        },
        {
          url: 'http://www.example.com/poor_html5.html',
          status: 200,
          size: 492,
          sha256: '074b73229015965205933972df6df920f7fa323e576c0d3324c19452ed2b2e6f',
        },
      ]),
    );
    expect(pages).toHaveLength(6);
  });
});

describe('a record whose Content-Length is a few bytes short of the blank line after it', () => {
  it("is read as long as it says, as warcio reads it (warcio's example-trunc.warc), and the stray bytes are reported", async () => {
    const db = tmp.path('trunc.sqlite');
    const result = await runCli([
      'import',
      fileURLToPath(new URL('../fixtures/warc/warcio-example-trunc.warc', import.meta.url)),
      '--db',
      db,
    ]);
    // Damaged input is said, on one line, and the record is still imported.
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /offset 1197: the record's Content-Length \(973\) is 2 bytes short of the blank line after it .*read as long as it says/,
      ),
    ]);
    const pages = readArchive<{ url: string; status: number; sha256: string }>(db, 'SELECT url, status, sha256 FROM pages');
    // python warcio reads this payload (the gzip body cut before its trailer still inflates whole).
    expect(pages).toEqual([
      { url: 'http://example.com/', status: 200, sha256: '3587cb776ce0e4e8237f215800b7dffba0f25865cb84550e87ea8bbac838c423' },
    ]);
  });

  it('is still skipped when what follows is more than a few stray bytes', async () => {
    const http = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello, a body of some length to cut';
    const file = tmp.path('short-by-much.warc');
    const cut = rawRecord('response', 'http://short.example/', '2024-01-01T00:00:00Z', http).toString('latin1');
    // The Content-Length says 20 bytes fewer than the block holds: those 20 bytes are no stray line end.
    const lied = cut.replace(/Content-Length: (\d+)/, (_m, n: string) => `Content-Length: ${Number(n) - 20}`);
    writeFileSync(file, lied);
    const db = tmp.path('short-by-much.sqlite');
    const result = await runCli(['import', file, '--db', db]);
    expect(result.stderr).toMatch(/does not end where its Content-Length/);
    expect(result.code).not.toBe(0);
  });
});
