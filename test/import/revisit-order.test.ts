import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';

// A revisit record is resolved whatever the order of the files and of the records in a file: one whose
// original has not come yet is set aside and resolved when everything is read, and one whose original
// an earlier import stored is resolved against the archive. It lands as the capture it would have been
// in order: its own time, the page if it is the latest.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const SITE = 'http://site.example';
const PAGE = '<!doctype html><title>kept</title><p>the same <a href="/other">other</a></p>';

const base32 = (bytes: Buffer) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((group) => alphabet[parseInt(group.padEnd(5, '0'), 2)]).join('');
};
const DIGEST = `sha1:${base32(createHash('sha1').update(PAGE).digest())}`;
const ORIGINAL_ID = '<urn:uuid:00000000-0000-4000-8000-000000000001>';

/** The original response, as the older crawl wrote it. */
const original = (date = '2024-01-01T00:00:00Z') =>
  rawRecord('response', `${SITE}/`, date, httpResponse('text/html', PAGE), {
    'WARC-Record-ID': ORIGINAL_ID,
    'WARC-Payload-Digest': DIGEST,
  });

/** A revisit of it, as Heritrix writes one in a later crawl: its own status line and headers, the payload by reference. */
const revisit = (date: string) =>
  rawRecord('revisit', `${SITE}/`, date, `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Crawl: ${date}\r\n\r\n`, {
    'WARC-Profile': 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest',
    'WARC-Refers-To': ORIGINAL_ID,
    'WARC-Refers-To-Target-URI': `${SITE}/`,
    'WARC-Refers-To-Date': '2024-01-01T00:00:00Z',
    'WARC-Payload-Digest': DIGEST,
  });

function write(name: string, ...records: Buffer[]): string {
  const path = tmp.path(name);
  writeFileSync(path, Buffer.concat(records));
  return path;
}

async function importInto(db: string, ...files: string[]) {
  const run = await execCli(['import', '--verbose', '--db', db, ...files]);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

interface CaptureRow {
  fetched_at: string;
  latest: number;
  body: Buffer;
  headers: string;
}
const captures = (db: string) =>
  readArchive<CaptureRow>(db, 'SELECT fetched_at, latest, body, headers FROM captures WHERE url = ? ORDER BY fetched_at', `${SITE}/`).map(
    (row) => ({ at: row.fetched_at, latest: row.latest, body: row.body.toString(), crawl: JSON.parse(row.headers)['x-crawl'] ?? null }),
  );

/** The original, then the revisit a year later as the URL's page, with the original's body and its own headers. */
const BOTH = [
  { at: '2024-01-01T00:00:00.000Z', latest: 0, body: PAGE, crawl: null },
  { at: '2025-01-01T00:00:00.000Z', latest: 1, body: PAGE, crawl: '2025-01-01T00:00:00Z' },
];

describe('crawlite import resolves a revisit whatever the order', () => {
  it('of the files: the newer crawl imported before the older', async () => {
    const older = write('older.warc', original());
    const newer = write('newer.warc', revisit('2025-01-01T00:00:00Z'));
    const db = tmp.path('files.sqlite');
    const run = await importInto(db, newer, older);
    expect(run.stderr).not.toContain('revisit_unresolved');
    expect(run.stdout).toContain('2 responses imported (1 of them revisit records');
    expect(captures(db)).toEqual(BOTH);
    expect(readArchive(db, 'SELECT title FROM pages WHERE url = ?', `${SITE}/`)).toEqual([{ title: 'kept' }]);
    // Its links are the page's, as they would have been in order.
    expect(readArchive(db, 'SELECT to_url FROM links WHERE from_url = ?', `${SITE}/`)).toEqual([{ to_url: `${SITE}/other` }]);
  });

  it('of the records in a file: the revisit written before its original', async () => {
    const db = tmp.path('records.sqlite');
    const run = await importInto(db, write('one.warc', revisit('2025-01-01T00:00:00Z'), original()));
    expect(run.stderr).not.toContain('revisit_unresolved');
    expect(captures(db)).toEqual(BOTH);
  });

  it('of the imports: the original imported by an earlier run is found in the archive by its digest', async () => {
    const db = tmp.path('runs.sqlite');
    await importInto(db, write('first.warc', original()));
    const run = await importInto(db, write('second.warc', revisit('2025-01-01T00:00:00Z')));
    expect(run.stderr).not.toContain('revisit_unresolved');
    expect(captures(db)).toEqual(BOTH);
  });

  it('and says a revisit is unresolved only once every file is read, and why', async () => {
    const db = tmp.path('missing.sqlite');
    const lone = rawRecord('revisit', `${SITE}/lone`, '2025-01-01T00:00:00Z', 'HTTP/1.1 200 OK\r\n\r\n', {
      'WARC-Payload-Digest': 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    const tooLarge = rawRecord('response', `${SITE}/big`, '2024-01-01T00:00:00Z', httpResponse('text/plain', 'x'.repeat(2000)), {
      'WARC-Record-ID': '<urn:uuid:00000000-0000-4000-8000-000000000002>',
    });
    const ofTooLarge = rawRecord('revisit', `${SITE}/big`, '2025-01-01T00:00:00Z', 'HTTP/1.1 200 OK\r\n\r\n', {
      'WARC-Refers-To': '<urn:uuid:00000000-0000-4000-8000-000000000002>',
    });
    const run = await execCli(['import', '--verbose', '--max-body', '1000', '--db', db, write('gaps.warc', lone, ofTooLarge, tooLarge)]);
    expect(run.code, run.stderr).toBe(0);
    const skipped = run.stderr.split('\n').filter((line) => line.includes('revisit_unresolved'));
    expect(skipped).toEqual([
      expect.stringContaining('a revisit record whose original is in none of the WARC files imported nor in the archive'),
      expect.stringContaining('a revisit record whose original was not imported (body_too_large)'),
    ]);
  });
});
