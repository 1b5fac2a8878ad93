import type { ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { bytes } from './bytes.js';
import { startServer, type TestServer } from './test-server.js';

// A site with every kind of answer an export must carry faithfully: encoded
// bodies, a chunked one, a redirect, a 404, every byte value, an empty body,
// a non-ASCII path, a legacy encoding, two URLs with the same body, and a URL
// that never answers.

export const GZIP_PAGE =
  '<!doctype html><html><head><title>gzipped</title></head><body>' + 'the same words, whatever the coding. '.repeat(40) + '</body></html>';
export const BR_TEXT = 'brotli text\n'.repeat(50);
export const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
export const TWIN_BODY = 'identical body for two URLs';
// 你好 in GBK: C4 E3 BA C3.
export const GBK_PAGE = bytes(
  '<html><head><meta charset="gbk"><title>',
  [0xc4, 0xe3, 0xba, 0xc3],
  '</title></head><body>gbk</body></html>',
);

const LINKS = ['/gzip', '/br', '/chunked', '/moved', '/missing', '/binary', '/empty', '/café', '/gbk', '/twin-a', '/twin-b', '/broken'];
export const ROOT_PAGE = `<!doctype html><html><head><title>root</title></head><body>${LINKS.map((path) => `<a href="${path}">${path}</a>`).join(' ')}</body></html>`;

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer = ''): void {
  // Headers set one by one, then end(body): Node adds Content-Length itself.
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(body);
}

const HTML = { 'content-type': 'text/html; charset=utf-8' };

export function startExportSite(): Promise<TestServer> {
  return startServer((req, res, path) => {
    switch (path) {
      case '/':
        return send(res, 200, HTML, ROOT_PAGE);
      case '/gzip':
        return send(res, 200, { ...HTML, 'content-encoding': 'gzip' }, gzipSync(GZIP_PAGE));
      case '/br':
        return send(res, 200, { 'content-type': 'text/plain', 'content-encoding': 'br' }, brotliCompressSync(BR_TEXT));
      case '/chunked':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('part one\n');
        res.write('part two\n');
        return res.end();
      case '/moved':
        return send(res, 301, { location: '/target', 'content-type': 'text/html' }, '<a href="/target">moved</a>');
      case '/target':
        return send(res, 200, HTML, '<html><head><title>target</title></head><body>arrived</body></html>');
      case '/missing':
        return send(res, 404, HTML, '<html><head><title>not found</title></head><body>no such page</body></html>');
      case '/binary':
        return send(res, 200, { 'content-type': 'application/octet-stream' }, ALL_BYTES);
      case '/empty':
        return send(res, 200, { 'content-type': 'text/plain' });
      case '/caf%C3%A9':
        return send(res, 200, HTML, '<html><head><title>café</title></head><body>café</body></html>');
      case '/gbk':
        return send(res, 200, { 'content-type': 'text/html; charset=gbk' }, GBK_PAGE);
      case '/twin-a':
      case '/twin-b':
        return send(res, 200, { 'content-type': 'text/plain' }, TWIN_BODY);
      case '/broken':
        return req.socket.destroy();
      default:
        return send(res, 404, { 'content-type': 'text/plain' }, 'not found');
    }
  });
}

/** The crawl flags for this site: quiet, one try for the URL that never answers. */
export const EXPORT_CRAWL_FLAGS = ['-q', '--max-tries', '1', '--retry-delay', '1'];
