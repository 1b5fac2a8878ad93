import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('bodies.sqlite');
const TEXT = '<p>the same words, whatever the coding</p>';
const encoded = (encoding: string, body: Buffer) => ({ headers: { 'content-type': 'text/plain', 'content-encoding': encoding }, body });

beforeAll(async () => {
  const paths = [
    '/gzip',
    '/deflate',
    '/raw-deflate',
    '/br',
    '/two-codings',
    '/corrupt',
    '/unknown',
    '/binary',
    '/twin-a',
    '/twin-b',
    '/cookies',
  ];
  server = await startServer(
    routes({
      '/': html(paths.map((path) => `<a href="${path}">${path}</a>`).join('')),
      '/gzip': encoded('gzip', gzipSync(TEXT)),
      '/deflate': encoded('deflate', deflateSync(TEXT)),
      '/raw-deflate': encoded('deflate', deflateRawSync(TEXT)),
      '/br': encoded('br', brotliCompressSync(TEXT)),
      '/two-codings': encoded('deflate, gzip', gzipSync(deflateSync(TEXT))),
      '/corrupt': encoded('gzip', Buffer.concat([gzipSync(TEXT).subarray(0, 12), Buffer.from('not gzip at all')])),
      '/unknown': encoded('compress', Buffer.from(TEXT)),
      '/binary': { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]) },
      '/twin-a': { headers: { 'content-type': 'text/plain' }, body: 'identical body' },
      '/twin-b': { headers: { 'content-type': 'text/plain' }, body: 'identical body' },
      '/cookies': { headers: { 'content-type': 'text/plain', 'x-custom': 'kept' }, body: 'c' },
    }),
  );
  const result = await runCli(['crawl', server.url, '--db', db, '-q', '--retry-delay', '1']);
  expect(result.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const body = (path: string) => readArchive<{ body: Buffer }>(db, 'SELECT body FROM pages WHERE url = ?', abs(server, path))[0]?.body;
const urlRow = (path: string) =>
  readArchive<{ state: string; error: string }>(db, 'SELECT state, error FROM urls WHERE url = ?', abs(server, path))[0];

describe('bodies', () => {
  it('undoes gzip, deflate (zlib or raw), br and stacked codings', () => {
    for (const path of ['/gzip', '/deflate', '/raw-deflate', '/br', '/two-codings']) expect(body(path)?.toString(), path).toBe(TEXT);
  });

  it('fails a body whose coding cannot be undone, after retrying, and stores no page for it', () => {
    expect(server.hitCount('/corrupt')).toBe(4);
    expect(urlRow('/corrupt')).toEqual({ state: 'failed', error: expect.stringContaining('corrupt gzip body') });
    expect(body('/corrupt')).toBeUndefined();
    expect(urlRow('/unknown')).toEqual({ state: 'failed', error: expect.stringContaining('unsupported Content-Encoding compress') });
  });

  it('stores other bodies as the exact bytes received, readable as a BLOB', () => {
    expect(body('/binary')).toEqual(Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
  });

  it('stores identical bodies once', () => {
    const [row] = readArchive<{ pages: number; bodies: number }>(
      db,
      "SELECT count(*) AS pages, count(DISTINCT sha256) AS bodies FROM pages WHERE url LIKE '%/twin-_'",
    );
    expect(row).toEqual({ pages: 2, bodies: 1 });
    const [stored] = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM body WHERE data = CAST('identical body' AS BLOB)");
    expect(stored!.n).toBe(1);
  });

  it('keeps the response headers as JSON', () => {
    const [row] = readArchive<{ custom: string; type: string }>(
      db,
      "SELECT json_extract(headers, '$.x-custom') AS custom, json_extract(headers, '$.content-type') AS type FROM pages WHERE url = ?",
      abs(server, '/cookies'),
    );
    expect(row).toEqual({ custom: 'kept', type: 'text/plain' });
  });
});
