import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { rawRecord } from '../support/raw-warc.js';

// Two responses of one URL in the same second (a WARC-Date has seconds) with the same payload are two
// captures when their header blocks differ, whether the second is the URL's page or an earlier capture;
// identical in all but their WARC-Record-ID, they are one, and the summary says how many were merged.
// The same WARC imported again adds nothing, and says it merged every record.

const tmp = tempDir();
const SITE = 'http://site.example';
const BODY = '<p>the same payload</p>';
const answer = (cookie: string) =>
  `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nSet-Cookie: visit=${cookie}\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;
const at = (url: string, date: string, cookie: string) => rawRecord('response', `${SITE}${url}`, date, answer(cookie));

const warc = tmp.path('same-second.warc');
const db = tmp.path('same-second.sqlite');
let first: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  writeFileSync(
    warc,
    Buffer.concat([
      // The page: two captures in one second.
      at('/page', '2024-06-01T10:00:00Z', 'one'),
      at('/page', '2024-06-01T10:00:00Z', 'two'),
      // Earlier captures: the page is later, the two in one second before it.
      at('/earlier', '2024-06-01T10:00:09Z', 'latest'),
      at('/earlier', '2024-06-01T10:00:00Z', 'one'),
      at('/earlier', '2024-06-01T10:00:00Z', 'two'),
      // The same exchange written twice, record ids aside.
      at('/twice', '2024-06-01T10:00:00Z', 'same'),
      at('/twice', '2024-06-01T10:00:00Z', 'same'),
    ]),
  );
  first = await execCli(['import', warc, '--db', db]);
  expect(first.code, first.stderr).toBe(0);
});

afterAll(() => tmp.cleanup());

const capturesOf = (path: string) =>
  readArchive<{ fetched_at: string; latest: number; headers: string }>(
    db,
    'SELECT fetched_at, latest, headers FROM captures WHERE url = ? ORDER BY fetched_at, latest',
    `${SITE}${path}`,
  ).map((row) => [row.fetched_at, JSON.parse(row.headers)['set-cookie'], row.latest]);

describe('records of one URL in the same second with the same payload', () => {
  it('are two captures when their headers differ, the later record the page', () => {
    expect(capturesOf('/page')).toEqual([
      ['2024-06-01T10:00:00.000Z', 'visit=one', 0],
      ['2024-06-01T10:00:00.000Z', 'visit=two', 1],
    ]);
  });

  it('are two earlier captures when their headers differ and the page is later', () => {
    expect(capturesOf('/earlier')).toEqual([
      ['2024-06-01T10:00:00.000Z', 'visit=one', 0],
      ['2024-06-01T10:00:00.000Z', 'visit=two', 0],
      ['2024-06-01T10:00:09.000Z', 'visit=latest', 1],
    ]);
  });

  it('are one capture when only their record ids differ, and the summary counts the merge', () => {
    expect(capturesOf('/twice')).toEqual([['2024-06-01T10:00:00.000Z', 'visit=same', 1]]);
    expect(first.stdout).toContain('7 responses imported');
    expect(first.stdout).toContain('merged: 1 the same as a capture already stored');
  });

  it('imported again, add nothing and are all counted as merged', async () => {
    const count = () => readArchive(db, 'SELECT count(*) AS n FROM captures');
    const before = count();
    expect(before).toEqual([{ n: 6 }]);
    const again = await execCli(['import', warc, '--db', db]);
    expect(again.code, again.stderr).toBe(0);
    expect(count()).toEqual(before);
    expect(again.stdout).toContain('merged: 7 the same as a capture already stored');
  });
});
