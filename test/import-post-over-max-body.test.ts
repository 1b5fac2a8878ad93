import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { httpRequest, httpResponse, rawRecord } from './support/raw-warc.js';
import { readWarc } from './support/warc-read.js';

// A POST whose body is over --max-body (an upload) is still a POST: its request
// line and headers are read, so its answer is kept as a capture of a POST, its
// body left out and said so, never as the URL's page; the GET's answer stays the page.

const tmp = tempDir();
const SITE = 'http://site.example';
const MAX_BODY = 1000;
/** Over --max-body plus the 1 MiB a record may hold beyond it: the request record itself is too large to hold. */
const UPLOAD = 'x'.repeat(MAX_BODY + 1024 * 1024 + 1);
/** Over --max-body in a record small enough to read whole. */
const FORM = 'y'.repeat(MAX_BODY + 1);
const db = tmp.path('post.sqlite');

beforeAll(async () => {
  const warc = tmp.path('post.warc');
  writeFileSync(
    warc,
    Buffer.concat([
      rawRecord('request', `${SITE}/x`, '2024-06-01T00:00:00Z', httpRequest('GET', '/x')),
      rawRecord('response', `${SITE}/x`, '2024-06-01T00:00:00Z', httpResponse('text/html', '<p>the form</p>')),
      // Later than the GET: were it taken for a GET, it would be the page.
      rawRecord('request', `${SITE}/x`, '2024-06-01T00:00:05Z', httpRequest('POST', '/x', UPLOAD, 'application/octet-stream')),
      rawRecord('response', `${SITE}/x`, '2024-06-01T00:00:05Z', httpResponse('text/html', '<p>upload received</p>')),
      rawRecord('request', `${SITE}/x`, '2024-06-01T00:00:06Z', httpRequest('POST', '/x', FORM, 'application/x-www-form-urlencoded')),
      rawRecord('response', `${SITE}/x`, '2024-06-01T00:00:06Z', httpResponse('text/html', '<p>form received</p>')),
    ]),
  );
  const run = await execCli(['import', warc, '--db', db, '--max-body', String(MAX_BODY)]);
  expect(run.code, run.stderr).toBe(0);
});

afterAll(() => tmp.cleanup());

it("keeps the GET's answer as the URL's page", () => {
  expect(readArchive(db, 'SELECT request_method, body FROM pages WHERE url = ?', `${SITE}/x`)).toEqual([
    { request_method: 'GET', body: Buffer.from('<p>the form</p>') },
  ]);
});

it("keeps the POST's answer as a capture of a POST, its request body left out and marked so", () => {
  const rows = readArchive<{
    request_method: string;
    request_body: Buffer | null;
    truncated: string | null;
    latest: number;
    body: Buffer;
    headers: Buffer;
  }>(
    db,
    'SELECT request_method, request_body, truncated, latest, body, request_headers AS headers FROM captures WHERE url = ? ORDER BY fetched_at',
    `${SITE}/x`,
  );
  expect(rows.map((row) => [row.request_method, row.request_body, row.truncated, row.latest, row.body.toString()])).toEqual([
    ['GET', null, null, 1, '<p>the form</p>'],
    ['POST', null, 'request-body', 0, '<p>upload received</p>'],
    ['POST', null, 'request-body', 0, '<p>form received</p>'],
  ]);
  // The request's headers as sent: they say how long the body left out was.
  expect(rows[1]!.headers.toString('latin1')).toContain(`Content-Length: ${UPLOAD.length}\r\n`);
  expect(rows[2]!.headers.toString('latin1')).toContain(`Content-Length: ${FORM.length}\r\n`);
});

it('exports the POST with its request cut (WARC-Truncated: length) and its answer whole; imported again, the same captures', async () => {
  const warc = tmp.path('out.warc.gz');
  const exported = await execCli(['export', db, '--warc', warc, '-q']);
  expect(exported.code, exported.stderr).toBe(0);
  const records = await readWarc(warc);
  const posts = records.filter((record) => record.type === 'request' && record.httpHead?.toString('latin1').startsWith('POST '));
  expect(posts.map((record) => [record.field('WARC-Truncated'), record.payload?.byteLength ?? 0])).toEqual([
    ['length', 0],
    ['length', 0],
  ]);
  const answers = records.filter((record) => record.type === 'response').map((record) => record.field('WARC-Truncated'));
  expect(answers).toEqual([undefined, undefined, undefined]);

  const again = tmp.path('again.sqlite');
  const imported = await execCli(['import', warc, '--db', again]);
  expect(imported.code, imported.stderr).toBe(0);
  const captures = (path: string) =>
    readArchive(path, 'SELECT fetched_at, request_method, request_body, truncated, latest, sha256 FROM captures ORDER BY fetched_at');
  expect(captures(again)).toEqual(captures(db));
});
