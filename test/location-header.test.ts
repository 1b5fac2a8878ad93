import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { startRawServer, type RawHttpServer } from './support/raw-http-server.js';
import { abs } from './support/urls.js';

// Location headers as servers really send them: raw UTF-8 bytes, Latin-1 bytes, and twice.
const redirect = (...locations: Buffer[]) =>
  Buffer.concat([
    Buffer.from('HTTP/1.1 302 Found\r\n'),
    ...locations.flatMap((location) => [Buffer.from('Location: '), location, Buffer.from('\r\n')]),
    Buffer.from('Content-Length: 0\r\nConnection: close\r\n\r\n'),
  ]);
const page = (body: string) =>
  Buffer.from(
    `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );

const UTF8_TARGET = '/%E6%96%87%E6%A1%A3/';

let server: RawHttpServer;
const tmp = tempDir();
const db = tmp.path('location.sqlite');

beforeAll(async () => {
  server = await startRawServer({
    '/': page('<a href="/utf8">utf8</a> <a href="/latin1">latin1</a> <a href="/two">two</a>'),
    '/utf8': redirect(Buffer.from('/文档/', 'utf8')),
    '/latin1': redirect(Buffer.from('/caf\u00e9', 'latin1')),
    '/two': redirect(Buffer.from('/first,one'), Buffer.from('/second')),
    [UTF8_TARGET]: page('documents'),
    '/caf%C3%A9': page('café'),
    '/first,one': page('first'),
    '/second': page('second'),
  });
  const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots', '--max-tries', '1']);
  expect(result).toMatchObject({ code: 0 });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const stored = (path: string) =>
  readArchive<{ location: string; headers: string }>(db, 'SELECT location, headers FROM pages WHERE url = ?', abs(server, path))[0]!;

describe('the Location header', () => {
  it('is read as UTF-8 when its bytes are valid UTF-8, as browsers do', () => {
    expect(server.requests).toContain(UTF8_TARGET);
    expect(stored('/utf8').location).toBe('/文档/');
    expect(readArchive(db, 'SELECT status FROM pages WHERE url = ?', abs(server, UTF8_TARGET))).toEqual([{ status: 200 }]);
  });

  it('is read as Latin-1 when its bytes are not UTF-8', () => {
    expect(server.requests).toContain('/caf%C3%A9');
    expect(stored('/latin1').location).toBe('/café');
  });

  it('sent twice: the first is followed, both are kept in the stored headers', () => {
    expect(server.requests).toContain('/first,one');
    expect(server.requests).not.toContain('/second');
    expect(server.requests.filter((target) => target.includes('first'))).toEqual(['/first,one']);
    const two = stored('/two');
    expect(two.location).toBe('/first,one');
    expect(JSON.parse(two.headers)).toMatchObject({ location: '/first,one\n/second' });
    expect(readArchive(db, "SELECT to_url FROM links WHERE from_url = ? AND kind = 'redirect'", abs(server, '/two'))).toEqual([
      { to_url: abs(server, '/first,one') },
    ]);
  });
});
