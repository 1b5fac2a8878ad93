import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMeasured } from './support/measured-cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { startServer, type TestServer } from './support/test-server.js';

const MiB = 1024 * 1024;
/** The text kept per page (MAX_TEXT_CHARS). */
const TEXT_CAP = MiB;
/**
 * What a page adds besides copies of its body, whatever its size: its text (capped at TEXT_CAP)
 * as extracted, sent over and indexed twice, and garbage not yet collected (socket buffers).
 */
const PER_PAGE_SLACK = 96 * MiB;

/**
 * A page of about 30 MiB with what makes a parse hold a page many times over: one text node of
 * 10 MiB, 8 MiB of paragraphs and links, an href of 6 MiB, a tag of 6 MiB of attributes, a last link.
 */
function bigPage(): Buffer {
  const parts: string[] = ['<!doctype html><html><head><title>big page</title></head><body>'];
  parts.push('<p>', 'word '.repeat((10 * MiB) / 5), '</p>');
  let size = 0;
  for (let i = 0; size < 8 * MiB; i++) {
    const unit = `<p>Words of paragraph ${i} &amp; more <a href="/p/${i % 2000}">link ${i}</a> and text.</p>\n`;
    parts.push(unit);
    size += unit.length;
  }
  parts.push('<a href="/huge?', 'a'.repeat(6 * MiB), '">huge</a>');
  parts.push('<div ', 'x '.repeat(3 * MiB), '>tag</div>');
  parts.push('<a href="/last">last</a></body></html>');
  return Buffer.from(parts.join(''));
}

const TINY = '<!doctype html><html><head><title>tiny</title></head><body><p>hello</p></body></html>';

/** A raw server whose answer never ends its first header line: `X-Big: aaaa...` for up to 100 MiB. */
async function endlessHeaderServer(): Promise<{ url: string; written: () => number; close: () => Promise<void> }> {
  let written = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Big: ');
      const chunk = Buffer.alloc(MiB, 'a');
      const pump = () => {
        while (!socket.destroyed && written < 100 * MiB) {
          written += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.end('\r\nContent-Length: 2\r\n\r\nok');
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    written: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A WARC file of one response record holding `http` (a whole HTTP response). */
function warcOf(path: string, http: Buffer): void {
  const head =
    'WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:6b1e3a52-1c55-4c2b-9d7e-3f0e0d1c2b3a>\r\n' +
    'WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/big\r\n' +
    `Content-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`;
  writeFileSync(path, Buffer.concat([Buffer.from(head), http, Buffer.from('\r\n\r\n')]));
}

const httpResponse = (headers: string, body: Buffer) =>
  Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n${headers}Content-Length: ${body.length}\r\n\r\n`, 'latin1'),
    body,
  ]);

describe('memory per page stays bounded by the page, not multiplied by what it holds', () => {
  const tmp = tempDir();
  const page = bigPage();
  const size = page.length;
  let server: TestServer;
  let baseline: number;

  beforeAll(async () => {
    server = await startServer((_req, res, path) => {
      const body = path === '/big' ? page : Buffer.from(TINY);
      res.writeHead(path === '/big' || path === '/tiny' ? 200 : 404, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
    // What a crawl of one small page takes: the process, its parse threads, SQLite.
    const tiny = await runMeasured(
      ['crawl', `${server.url}tiny`, '--db', tmp.path('tiny.sqlite'), '-q', '--max-depth', '0', '--max-body', String(size)],
      tmp.path('tiny.peak'),
    );
    expect(tiny.code, tiny.stderr).toBe(0);
    baseline = tiny.peak;
  });

  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  it(`a crawl of a ${Math.round(size / MiB)} MiB page (--max-body its size, text on) peaks under 3x its size over a small page's crawl (and a fixed slack), and stores it whole`, async () => {
    const db = tmp.path('big.sqlite');
    const run = await runMeasured(
      ['crawl', `${server.url}big`, '--db', db, '-q', '--max-depth', '0', '--max-body', String(size)],
      tmp.path('big.peak'),
    );
    console.log(
      `crawl: page ${(size / MiB).toFixed(1)} MiB, baseline ${(baseline / MiB).toFixed(0)} MiB, peak ${(run.peak / MiB).toFixed(0)} MiB = baseline + ${((run.peak - baseline) / size).toFixed(2)} x page`,
    );
    expect(run.code, run.stderr).toBe(0);
    const [stored] = readArchive<{ size: number; title: string }>(db, "SELECT size, title FROM pages WHERE url LIKE '%/big'");
    expect(stored).toEqual({ size, title: 'big page' });
    // The parse read to the end: the link after the huge text, href and tag was found; the 6 MiB href was not kept.
    const links = readArchive<{ to_url: string }>(db, "SELECT to_url FROM links WHERE from_url LIKE '%/big'").map((row) => row.to_url);
    expect(links).toContain(`${server.url}last`);
    expect(links.some((url) => url.includes('/huge'))).toBe(false);
    const [text] = readArchive<{ length: number; start: string }>(
      db,
      "SELECT length(body) AS length, substr(body, 1, 30) AS start FROM page_text WHERE url LIKE '%/big'",
    );
    expect(text!.start).toBe('word word word word word word ');
    expect(text!.length).toBe(TEXT_CAP);
    // Storing a body takes three times its size at its insert alone: the page, and SQLite's copies of it to bind and to build the row.
    expect(run.peak).toBeLessThan(baseline + 3 * size + PER_PAGE_SLACK);
  });

  it('an import of a WARC holding that page peaks under 5x its size over a small one (and a fixed slack)', async () => {
    const small = tmp.path('small.warc');
    warcOf(small, httpResponse('', Buffer.from(TINY)));
    const base = await runMeasured(['import', small, '--db', tmp.path('small-import.sqlite'), '-q'], tmp.path('small-import.peak'));
    expect(base.code, base.stderr).toBe(0);
    const warc = tmp.path('big.warc');
    warcOf(warc, httpResponse('', page));
    const db = tmp.path('big-import.sqlite');
    const run = await runMeasured(['import', warc, '--db', db, '-q', '--max-body', String(size)], tmp.path('big-import.peak'));
    console.log(
      `import: baseline ${(base.peak / MiB).toFixed(0)} MiB, peak ${(run.peak / MiB).toFixed(0)} MiB = baseline + ${((run.peak - base.peak) / size).toFixed(2)} x page`,
    );
    expect(run.code, run.stderr).toBe(0);
    const [text] = readArchive<{ length: number; size: number }>(
      db,
      "SELECT length(t.body) AS length, p.size FROM page_text t JOIN pages p ON p.url = t.url WHERE t.url LIKE '%/big'",
    );
    expect(text).toEqual({ length: TEXT_CAP, size });
    // Besides the crawl's three copies, the WARC reader holds the record twice while reading it; the parse adds next to nothing.
    expect(run.peak).toBeLessThan(base.peak + 5 * size + PER_PAGE_SLACK);
  });

  it('a response with a 100 MiB header line fails headers_too_large on its first try, in little memory', async () => {
    const raw = await endlessHeaderServer();
    try {
      const db = tmp.path('header.sqlite');
      const run = await runMeasured(['crawl', `${raw.url}endless`, '--db', db, '-q', '--ignore-robots'], tmp.path('header.peak'));
      console.log(
        `long header: peak ${(run.peak / MiB).toFixed(0)} MiB, baseline ${(baseline / MiB).toFixed(0)} MiB, server wrote ${(raw.written() / MiB).toFixed(0)} MiB`,
      );
      // The only root failed: the crawl says so and exits non-zero, with one clear line.
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('response headers longer than 65536 bytes');
      const [row] = readArchive<{ state: string; tries: number; error: string }>(
        db,
        "SELECT state, tries, error FROM urls WHERE url LIKE '%/endless'",
      );
      expect(row).toMatchObject({ state: 'failed', tries: 1 });
      expect(readArchive<{ code: string }>(db, "SELECT error_code AS code FROM url WHERE url LIKE '%/endless'")).toEqual([
        { code: 'headers_too_large' },
      ]);
      expect(run.peak).toBeLessThan(baseline + 32 * MiB);
    } finally {
      await raw.close();
    }
  });

  it('an imported record with an 8 MiB header line is skipped headers_too_large', async () => {
    const warc = tmp.path('header.warc');
    warcOf(warc, httpResponse(`X-Big: ${'a'.repeat(8 * MiB)}\r\n`, Buffer.from(TINY)));
    const run = await runMeasured(['import', warc, '--db', tmp.path('header-import.sqlite')], tmp.path('header-import.peak'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('headers_too_large 1');
    expect(readArchive(tmp.path('header-import.sqlite'), 'SELECT url FROM pages')).toEqual([]);
  });
});
