import { startServer, type TestServer } from './test-server.js';
import { sleep } from './wait.js';

/** Where page i of a linked site is served. */
export const pagePath = (i: number) => `/p/${i}`;

/**
 * Every path a full crawl of an n-page linked site requests: robots.txt
 * (fetched before anything else and archived like any page), the index, the pages.
 */
export const sitePaths = (n: number) => ['/robots.txt', '/', ...Array.from({ length: n }, (_, i) => pagePath(i))];

/**
 * Page i of a deterministic site of n pages: it links to i+1, 2i and 3i
 * (mod n) and to the index, so everything is reachable through the i+1 chain.
 */
export function linkedPage(i: number, n: number, pathOf: (i: number) => string, name = 'page'): string {
  const links = [(i + 1) % n, (2 * i) % n, (3 * i) % n].map((t) => `<a href="${pathOf(t)}">${name} ${t}</a>`).join(' ');
  return `<!doctype html><html><head><title>${name} ${i}</title></head><body><h1>${name} ${i}</h1>${links} <a href="/">index</a></body></html>`;
}

/**
 * Serves an n-page linked site (`/` is page 0, pages at /p/i, no robots.txt), each answer after
 * `delayMs`: a site several crawlers can share, slow enough for each to take part.
 */
export function startLinkedSite(n: number, delayMs = 0): Promise<TestServer> {
  return startServer(async (_req, res, path) => {
    if (path === '/robots.txt') return res.writeHead(404).end();
    if (delayMs > 0) await sleep(delayMs);
    const i = path === '/' ? 0 : Number(path.slice(3));
    res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(i, n, pagePath));
  });
}
