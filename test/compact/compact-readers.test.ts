import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/library/index.js';
import { serveArchive } from '../../src/serve/serve-archive.js';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { get } from '../support/serve.js';
import { html, routes, startServer, text, type TestServer } from '../support/test-server.js';
import { abs } from '../support/urls.js';
import { readWarc } from '../support/warc-read.js';

// One site crawled twice, plain and --compact: every reader must give the same bytes from both.
let server: TestServer;
const tmp = tempDir();
const plain = tmp.path('plain.sqlite');
const compact = tmp.path('compact.sqlite');
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed} word ${i % 37} of the page`).join(' ');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4000, 7)]);
const NOISE = randomBytes(3000);
let changed = false;
const PATHS = ['/a', '/b', '/style.css', '/app.js', '/img.png', '/noise.bin', '/tiny.txt'];

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': html(`${PATHS.map((path) => `<a href="${path}">${path}</a>`).join('')}<p>${words(200, 'home')}</p>`),
      // Changes before the re-crawl, for diff.
      '/a': () => html(`<p>${words(300, changed ? 'changed' : 'first')}</p>`, 'A'),
      '/b': html(`<p>${words(300, 'bee')}</p>`, 'B'),
      '/style.css': { headers: { 'content-type': 'text/css' }, body: `body { color: red; }\n`.repeat(200) },
      '/app.js': { headers: { 'content-type': 'text/javascript' }, body: `console.log("hello");\n`.repeat(200) },
      '/img.png': { headers: { 'content-type': 'image/png' }, body: PNG },
      '/noise.bin': { headers: { 'content-type': 'application/octet-stream' }, body: NOISE },
      '/tiny.txt': text('x'),
    }),
  );
  for (const [db, flags] of [
    [plain, []],
    [compact, ['--compact']],
  ] as const) {
    const crawled = await runCli(['crawl', server.url, '--db', db, '-q', ...flags]);
    expect(crawled.code, crawled.stderr).toBe(0);
  }
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const pageRows = (db: string) =>
  readArchive<{ url: string; size: number; sha256: string; sha1: string }>(db, 'SELECT url, size, sha256, sha1 FROM pages ORDER BY url');
const stored = (db: string, path: string) =>
  readArchive<{ length: number; size: number }>(db, 'SELECT length(body) AS length, size FROM pages WHERE url = ?', abs(server, path))[0]!;

describe('a compact archive', () => {
  it('stores text bodies compressed and already-compressed, random or tiny ones raw, with the hashes and sizes of the raw bodies', () => {
    expect(pageRows(compact)).toEqual(pageRows(plain));
    for (const path of ['/', '/a', '/b', '/style.css', '/app.js'])
      expect(stored(compact, path).length, path).toBeLessThan(stored(compact, path).size);
    for (const path of ['/img.png', '/noise.bin', '/tiny.txt']) expect(stored(compact, path).length, path).toBe(stored(compact, path).size);
    for (const path of PATHS) expect(stored(plain, path).length).toBe(stored(plain, path).size);
    expect(readArchive(compact, "SELECT value FROM meta WHERE key = 'compact'")).toEqual([{ value: 'true' }]);
  });

  it('query: sqlar_uncompress(body, size) gives the bytes the plain archive holds', async () => {
    const sql = (column: string) => `SELECT url, hex(${column}) AS bytes FROM pages ORDER BY url`;
    const fromPlain = await runCli(['query', plain, sql('body'), '-f', 'json']);
    const fromCompact = await runCli(['query', compact, sql('sqlar_uncompress(body, size)'), '-f', 'json']);
    expect(fromCompact.code, fromCompact.stderr).toBe(0);
    expect(JSON.parse(fromCompact.stdout)).toEqual(JSON.parse(fromPlain.stdout));
    expect(JSON.parse(fromPlain.stdout)).toHaveLength(PATHS.length + 2);
  });

  it('the library: pages read back with their raw bodies', () => {
    const bodies = (db: string) => {
      const archive = openArchive(db);
      try {
        return [...archive.pages()].map((page) => [page.url, page.body.toString('hex')]);
      } finally {
        archive.close();
      }
    };
    expect(bodies(compact)).toEqual(bodies(plain));
  });

  it('export: WARC payloads byte-identical to those of the plain archive', async () => {
    const payloads = async (db: string) => {
      const warc = `${db}.warc.gz`;
      const exported = await runCli(['export', db, '--warc', warc, '-q']);
      expect(exported.code, exported.stderr).toBe(0);
      return (await readWarc(warc))
        .filter((record) => record.type === 'response')
        .map((record) => [record.field('WARC-Target-URI'), record.field('WARC-Payload-Digest'), record.payload!.toString('hex')])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    };
    const fromPlain = await payloads(plain);
    expect(fromPlain).toHaveLength(PATHS.length + 2);
    expect(await payloads(compact)).toEqual(fromPlain);
  });

  it('serve: replay sends the raw bytes', async () => {
    const serving = await serveArchive({ path: compact, host: '127.0.0.1', port: 0 });
    try {
      for (const path of ['/b', '/style.css']) {
        const [row] = readArchive<{ fetched_at: string; body: Buffer }>(
          plain,
          'SELECT fetched_at, body FROM pages WHERE url = ?',
          abs(server, path),
        );
        const [at] = readArchive<{ fetched_at: string }>(compact, 'SELECT fetched_at FROM pages WHERE url = ?', abs(server, path));
        const replayed = await get(serving.replayOrigin, replayPath(abs(server, path), captureTimestamp(at!.fetched_at), 'id_'));
        expect(replayed.status).toBe(200);
        expect(replayed.body).toBe(row!.body.toString('utf8'));
      }
    } finally {
      await serving.close();
    }
  });

  it('diff: a re-crawl of a compact archive compares the texts of the raw bodies', async () => {
    changed = true;
    const again = await runCli(['recrawl', compact, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(stored(compact, '/a').length).toBeLessThan(stored(compact, '/a').size);
    const diff = await runCli(['diff', compact, '--url', abs(server, '/a')]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('-first word 0 of the page');
    expect(diff.stdout).toContain('+changed word 0 of the page');
  });
});
