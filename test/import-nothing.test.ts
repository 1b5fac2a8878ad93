import { readdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSha256, readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';

// An import that finds not one WARC record creates no archive, and leaves an existing one as it was.
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function warcResponse(url: string, body: string): string {
  const http = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const fields = [
    'WARC/1.0',
    'WARC-Type: response',
    `WARC-Target-URI: ${url}`,
    'WARC-Date: 2024-01-01T00:00:00Z',
    'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>',
    'Content-Type: application/http;msgtype=response',
    `Content-Length: ${Buffer.byteLength(http)}`,
  ];
  return `${fields.join('\r\n')}\r\n\r\n${http}\r\n\r\n`;
}

describe('import of files without a WARC record', () => {
  const notes = tmp.path('notes.txt');
  writeFileSync(notes, 'just some notes\nnothing else\n');

  it('creates no archive: no file, no -wal, no lock', async () => {
    const db = tmp.path('never.sqlite');
    const result = await runCli(['import', notes, '--db', db]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(`crawlite: ${notes}: offset 0: not a WARC file (it starts with "just some notes")\n`);
    expect(result.stdout).toBe(`nothing imported: no WARC record in the file; ${db} not created\n`);
    expect(readdirSync(tmp.dir).filter((name) => name.startsWith('never'))).toEqual([]);
  });

  it('leaves an existing archive byte for byte as it was, without a run of its own', async () => {
    const warc = tmp.path('one.warc');
    writeFileSync(warc, warcResponse('http://site.example/', '<p>hello</p>'));
    const db = tmp.path('existing.sqlite');
    expect((await runCli(['import', warc, '--db', db, '-q'])).code).toBe(0);
    const before = fileSha256(db);
    const runs = readArchive(db, 'SELECT count(*) AS n FROM run');

    const result = await runCli(['import', notes, notes, '--db', db]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe(`nothing imported: no WARC record in the 2 files; ${db} left as it was\n`);
    expect(fileSha256(db)).toBe(before);
    expect(readArchive(db, 'SELECT count(*) AS n FROM run')).toEqual(runs);
  });

  it('a file with no record beside one with records imports those, reporting each problem once', async () => {
    const warc = tmp.path('two.warc');
    writeFileSync(warc, warcResponse('http://site.example/a', '<p>a</p>'));
    const db = tmp.path('mixed.sqlite');
    const result = await runCli(['import', notes, warc, '--db', db]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(`crawlite: ${notes}: offset 0: not a WARC file (it starts with "just some notes")\n`);
    expect(readArchive(db, 'SELECT url FROM pages')).toEqual([{ url: 'http://site.example/a' }]);
  });
});
