import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { solidPng } from './support/png.js';
import { startServer, type TestServer } from './support/test-server.js';
import { readZip } from './support/zip-read.js';

// pages.jsonl is the list a replay shows as the archive's pages: like
// Browsertrix and py-wacz, only the URLs crawled as pages that answered
// HTML with a 2xx status. A robots.txt or an error page, even served as
// HTML, an image or a PDF are not pages to open.

const HTML = { 'content-type': 'text/html; charset=utf-8' };
const page = (title: string, body = '') => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

let server: TestServer;
const tmp = tempDir();
let urls: string[];

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    switch (path) {
      case '/':
        res.writeHead(200, HTML);
        return res.end(
          page(
            'home',
            '<a href="/about">about</a> <a href="/gone">gone</a> <a href="/fails">fails</a> <a href="/paper.pdf">paper</a> <img src="/logo.png">',
          ),
        );
      case '/about':
        res.writeHead(200, HTML);
        return res.end(page('about'));
      case '/robots.txt':
        // A server that answers everything as HTML.
        res.writeHead(200, HTML);
        return res.end('User-agent: *\nAllow: /\n');
      case '/fails':
        res.writeHead(500, HTML);
        return res.end(page('server error'));
      case '/logo.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(solidPng(2, 2, [0, 128, 255]));
      case '/paper.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end('%PDF-1.4\n%%EOF\n');
      default:
        res.writeHead(404, HTML);
        return res.end(page('not found'));
    }
  });
  const db = tmp.path('site.sqlite');
  const wacz = tmp.path('site.wacz');
  expect((await runCli(['crawl', server.url, '--db', db, '-q', '--max-tries', '1'])).stderr).toBe('');
  const result = await execCli(['export', db, '--wacz', wacz]);
  expect(result.code, result.stderr).toBe(0);
  const entry = readZip(readFileSync(wacz)).find((e) => e.name === 'pages/pages.jsonl')!;
  const lines = entry
    .data()
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { url: string });
  urls = lines.slice(1).map((line) => line.url);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('pages.jsonl in a WACZ', () => {
  it('lists the HTML pages that answered 2xx, and nothing else', () => {
    expect(server.hitCount('/robots.txt')).toBe(1);
    expect(server.hitCount('/gone')).toBe(1);
    expect(server.hitCount('/logo.png')).toBe(1);
    expect(server.hitCount('/paper.pdf')).toBe(1);
    expect(urls.sort()).toEqual([server.url, `${server.url}about`]);
  });
});
