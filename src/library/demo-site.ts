import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A small bundled site for `crawlite demo`, served on 127.0.0.1: articles
 * that link to each other, a redirect, a 404, a gzip-encoded page, a page
 * that fails once before it works, a non-HTML file and links that leave the site.
 */
const ARTICLES = 200;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

const nav = '<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/articles/">Articles</a></nav>';

function articleBody(n: number): string {
  const next = (n % ARTICLES) + 1;
  const related = ((n * 7) % ARTICLES) + 1;
  return `${nav}<p>Article ${n} of the sample site.</p>
    <a href="/articles/${next}">next</a> <a href="../articles/${related}#comments">related</a>
    <a href="/articles/${n}?utm=demo">same article, tracked</a> <a href="mailto:editor@example.com">write to us</a>`;
}

function route(path: string, hits: Map<string, number>): { status: number; headers: Record<string, string>; body: string | Buffer } {
  const html = { 'content-type': 'text/html; charset=utf-8' };
  if (path === '/') {
    return {
      status: 200,
      headers: html,
      body: page(
        'Sample site',
        `${nav}<ul>${[1, 2, 3].map((n) => `<li><a href="articles/${n}">Article ${n}</a></li>`).join('')}</ul>
        <a href="/old-about">old about link</a> <a href="/missing">a broken link</a> <a href="/news">news (gzip)</a>
        <a href="/flaky">a flaky page</a> <a href="/feed.xml">feed</a> <a href="https://example.org/elsewhere">another site</a>`,
      ),
    };
  }
  if (path === '/about') return { status: 200, headers: html, body: page('About', `${nav}<p>A site made to show crawlite.</p>`) };
  if (path === '/old-about') return { status: 301, headers: { location: '/about' }, body: '' };
  if (path === '/articles/') {
    const list = Array.from({ length: ARTICLES }, (_, i) => `<li><a href="${i + 1}">Article ${i + 1}</a></li>`).join('');
    return { status: 200, headers: html, body: page('Articles', `${nav}<ul>${list}</ul>`) };
  }
  const article = /^\/articles\/(\d+)$/.exec(path);
  if (article && Number(article[1]) >= 1 && Number(article[1]) <= ARTICLES) {
    return { status: 200, headers: html, body: page(`Article ${article[1]}`, articleBody(Number(article[1]))) };
  }
  if (path === '/news') {
    return {
      status: 200,
      headers: { ...html, 'content-encoding': 'gzip' },
      body: gzipSync(page('News', `${nav}<p>Served with gzip.</p>`)),
    };
  }
  if (path === '/flaky') {
    return (hits.get(path) ?? 0) <= 1
      ? { status: 503, headers: { 'retry-after': '1' }, body: 'busy' }
      : { status: 200, headers: html, body: page('Flaky', `${nav}<p>Worked on the second try.</p>`) };
  }
  if (path === '/feed.xml') {
    return { status: 200, headers: { 'content-type': 'application/rss+xml' }, body: '<rss><channel><title>Sample</title></channel></rss>' };
  }
  return { status: 404, headers: html, body: page('Not found', nav) };
}

export interface SampleSite {
  url: string;
  close(): Promise<void>;
}

export function startSampleSite(): Promise<SampleSite> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://sample').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const { status, headers, body } = route(path, hits);
    res.writeHead(status, headers).end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
