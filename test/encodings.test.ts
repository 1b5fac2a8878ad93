import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { bytes } from './support/bytes.js';
import { runCli } from './support/cli.js';
import { routes, startServer, type Route, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

// Pages in legacy encodings, built byte by byte: ASCII markup around the bytes of known code points.
// 你好 = C4 E3 BA C3, 中文 = D6 D0 CE C4, 文档 = CE C4 B5 B5 (GBK); 日本 = 93 FA 96 7B, あ = 82 A0 (Shift_JIS).
const NIHAO = [0xc4, 0xe3, 0xba, 0xc3];
const ZHONGWEN = [0xd6, 0xd0, 0xce, 0xc4];
const WENDANG = [0xce, 0xc4, 0xb5, 0xb5];
const NIHON = [0x93, 0xfa, 0x96, 0x7b];
const A_HIRAGANA = [0x82, 0xa0];

const gbkPage = bytes(
  '<!doctype html><html><head><meta charset="gbk"><title>',
  NIHAO,
  ZHONGWEN,
  '</title></head><body>\n<a href="/',
  WENDANG,
  '/">',
  WENDANG,
  '</a> <a href="',
  ZHONGWEN,
  '.html">',
  ZHONGWEN,
  '</a>\n</body></html>',
);

const sjisPage = bytes(
  '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><title>',
  NIHON,
  A_HIRAGANA,
  '</title></head><body>\n<a href="/',
  NIHON,
  '/">',
  NIHON,
  '</a> <a href="',
  A_HIRAGANA,
  '.html">',
  A_HIRAGANA,
  '</a>\n</body></html>',
);

// The header says GBK, the <meta> says UTF-8: the header wins, as in browsers.
const headerGbkPage = bytes('<html><head><meta charset="utf-8"><title>', ZHONGWEN, '</title></head><body>gbk</body></html>');
// The header says UTF-8, the <meta> says Shift_JIS, the bytes are UTF-8.
const headerUtf8Page = Buffer.from('<html><head><meta charset="shift_jis"><title>ü日本</title></head><body>utf-8</body></html>', 'utf8');

// Not valid UTF-8 and nothing declared: windows-1252.
const latinPage = bytes('<html><head><title>caf\xe9</title></head><body><a href="/caf\xe9">menu</a></body></html>');
const smartPage = bytes('<html><head><title>\x93quoted\x94 \x80 5</title></head><body>smart quotes</body></html>');

const bogusHeaderPage = Buffer.from(
  '<html><head><title>naïve 日本</title></head><body><a href="/after-bogus-header">next</a></body></html>',
  'utf8',
);
const bogusMetaPage = Buffer.from(
  '<html><head><meta charset="bogus"><title>naïve 中文</title></head><body><a href="/after-bogus-meta">next</a></body></html>',
  'utf8',
);

const TEXT_HTML = { 'content-type': 'text/html' };
const leaf = (text: string): Route => ({
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<html><body>${text}</body></html>`,
});

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('encodings.sqlite');

interface PageRow {
  url: string;
  status: number;
  title: string | null;
  charset: string | null;
  body: Buffer;
  sha256: string;
  headers: string;
}

const page = (path: string) => readArchive<PageRow>(db, 'SELECT * FROM pages WHERE url = ?', abs(server, path))[0];
const linksFrom = (path: string) =>
  readArchive<{ to_url: string; kind: string }>(db, 'SELECT to_url, kind FROM links WHERE from_url = ? ORDER BY to_url', abs(server, path));

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': leaf(
        [
          '/gbk/index.html',
          '/sjis/index.html',
          '/header-gbk',
          '/header-utf8',
          '/latin',
          '/smart',
          '/bogus-header',
          '/bogus-meta',
          '/headers',
        ]
          .map((path) => `<a href="${path}">${path}</a>`)
          .join(' '),
      ),
      '/gbk/index.html': { headers: TEXT_HTML, body: gbkPage },
      '/%E6%96%87%E6%A1%A3/': leaf('documents'),
      '/gbk/%E4%B8%AD%E6%96%87.html': leaf('chinese'),
      '/sjis/index.html': { headers: TEXT_HTML, body: sjisPage },
      '/%E6%97%A5%E6%9C%AC/': leaf('japan'),
      '/sjis/%E3%81%82.html': leaf('a'),
      '/header-gbk': { headers: { 'content-type': 'text/html; charset=GBK' }, body: headerGbkPage },
      '/header-utf8': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: headerUtf8Page },
      '/latin': { headers: TEXT_HTML, body: latinPage },
      '/caf%C3%A9': leaf('menu'),
      '/smart': { headers: TEXT_HTML, body: smartPage },
      '/bogus-header': { headers: { 'content-type': 'text/html; charset=bogus' }, body: bogusHeaderPage },
      '/after-bogus-header': leaf('after'),
      '/bogus-meta': { headers: TEXT_HTML, body: bogusMetaPage },
      '/after-bogus-meta': leaf('after'),
      '/headers': {
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'X-Mixed-Case': 'Yes', ETag: '"abc"', 'Cache-Control': 'no-cache' },
        body: '<html><head><title>headers</title></head></html>',
      },
    }),
  );
  const result = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots']);
  expect(result).toMatchObject({ code: 0 });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('the test fixtures', () => {
  it('are the bytes of the code points they claim to be', () => {
    expect(new TextDecoder('gbk').decode(bytes(NIHAO, ZHONGWEN, WENDANG))).toBe('你好中文文档');
    expect(new TextDecoder('shift_jis').decode(bytes(NIHON, A_HIRAGANA))).toBe('日本あ');
    expect(gbkPage.includes(Buffer.from('你好', 'utf8'))).toBe(false);
  });
});

describe('a GBK page declared only by <meta charset>', () => {
  it('is decoded as GBK: the title is Unicode text and the charset is recorded', () => {
    const row = page('/gbk/index.html');
    expect(row).toMatchObject({ status: 200, title: '你好中文', charset: 'gbk' });
  });

  it('keeps the body exactly as the bytes received', () => {
    const row = page('/gbk/index.html')!;
    expect(Buffer.from(row.body).equals(gbkPage)).toBe(true);
    expect(row.sha256).toBe(createHash('sha256').update(gbkPage).digest('hex'));
  });

  it('resolves its GBK-written links to UTF-8 percent-encoded URLs and fetches them', () => {
    expect(linksFrom('/gbk/index.html')).toEqual([
      { to_url: abs(server, '/%E6%96%87%E6%A1%A3/'), kind: 'link' },
      { to_url: abs(server, '/gbk/%E4%B8%AD%E6%96%87.html'), kind: 'link' },
    ]);
    expect(server.hitCount('/%E6%96%87%E6%A1%A3/')).toBe(1);
    expect(server.hitCount('/gbk/%E4%B8%AD%E6%96%87.html')).toBe(1);
    expect(page('/%E6%96%87%E6%A1%A3/')).toMatchObject({ status: 200 });
  });
});

describe('a Shift_JIS page declared only by <meta http-equiv="Content-Type">', () => {
  it('is decoded as Shift_JIS', () => {
    expect(page('/sjis/index.html')).toMatchObject({ status: 200, title: '日本あ', charset: 'shift_jis' });
  });

  it('keeps the body exactly as the bytes received', () => {
    expect(Buffer.from(page('/sjis/index.html')!.body).equals(sjisPage)).toBe(true);
  });

  it('resolves its links from the decoded characters', () => {
    expect(linksFrom('/sjis/index.html')).toEqual([
      { to_url: abs(server, '/%E6%97%A5%E6%9C%AC/'), kind: 'link' },
      { to_url: abs(server, '/sjis/%E3%81%82.html'), kind: 'link' },
    ]);
    expect(server.hitCount('/%E6%97%A5%E6%9C%AC/')).toBe(1);
    expect(server.hitCount('/sjis/%E3%81%82.html')).toBe(1);
  });
});

describe('the Content-Type charset', () => {
  it('wins over a <meta> charset that says otherwise (GBK header, UTF-8 meta)', () => {
    expect(page('/header-gbk')).toMatchObject({ title: '中文', charset: 'gbk' });
  });

  it('wins over a <meta> charset that says otherwise (UTF-8 header, Shift_JIS meta)', () => {
    expect(page('/header-utf8')).toMatchObject({ title: 'ü日本', charset: 'utf-8' });
  });
});

describe('a page with no declaration that is not valid UTF-8', () => {
  it('is decoded as windows-1252', () => {
    expect(page('/latin')).toMatchObject({ title: 'café', charset: 'windows-1252' });
    expect(Buffer.from(page('/latin')!.body).equals(latinPage)).toBe(true);
  });

  it('maps 0x80-0x9F to the windows-1252 characters, not C1 controls', () => {
    expect(page('/smart')?.title).toBe('\u201cquoted\u201d \u20ac 5');
  });

  it('resolves a link written in windows-1252 to its UTF-8 percent-encoding', () => {
    expect(linksFrom('/latin')).toEqual([{ to_url: abs(server, '/caf%C3%A9'), kind: 'link' }]);
    expect(server.hitCount('/caf%C3%A9')).toBe(1);
  });
});

describe('a charset label that does not exist', () => {
  it('in the Content-Type is ignored: the page is sniffed, stored and its links followed', () => {
    expect(page('/bogus-header')).toMatchObject({ status: 200, title: 'naïve 日本', charset: 'utf-8' });
    expect(linksFrom('/bogus-header')).toEqual([{ to_url: abs(server, '/after-bogus-header'), kind: 'link' }]);
    expect(server.hitCount('/after-bogus-header')).toBe(1);
    expect(page('/after-bogus-header')).toMatchObject({ status: 200 });
  });

  it('in a <meta charset> is ignored too', () => {
    expect(page('/bogus-meta')).toMatchObject({ status: 200, title: 'naïve 中文', charset: 'utf-8' });
    expect(server.hitCount('/after-bogus-meta')).toBe(1);
  });

  it('leaves no URL of the crawl failed', () => {
    expect(readArchive(db, "SELECT url, state, error FROM urls WHERE state != 'done'")).toEqual([]);
  });
});

describe('stored headers', () => {
  it('are JSON with lower-case names, whatever case the server used', () => {
    const headers = JSON.parse(page('/headers')!.headers) as Record<string, string>;
    for (const name of Object.keys(headers)) expect(name).toBe(name.toLowerCase());
    expect(headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'x-mixed-case': 'Yes',
      etag: '"abc"',
      'cache-control': 'no-cache',
    });
  });
});
