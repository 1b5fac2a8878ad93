import { html, startServer, type TestServer } from './test-server.js';
import { sleep } from './wait.js';

export interface GatedSite {
  server: TestServer;
  /** Lets the gated pages answer. */
  openGate(): void;
}

/**
 * A home page linking `/p/0` … `/p/{pages-1}`, each answered after `delayMs`; pages from `gatedFrom` on
 * also wait for `openGate()`, so a crawl of it is surely still running until the test says. The gate
 * opens by itself after `gateLimitMs`, so a failing test never leaves a crawl hanging.
 */
export async function startGatedSite(options: {
  pages: number;
  gatedFrom: number;
  delayMs: number;
  gateLimitMs: number;
  linkHome?: boolean;
}): Promise<GatedSite> {
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const links = Array.from({ length: options.pages }, (_, i) => `<a href="/p/${i}">page ${i}</a>`).join('\n');
  const server = await startServer(async (_req, res, path) => {
    const match = /^\/p\/(\d+)$/.exec(path);
    if (path !== '/' && !match) {
      res.writeHead(404).end('not found');
      return;
    }
    await sleep(options.delayMs);
    if (match && Number(match[1]) >= options.gatedFrom) await Promise.race([gate, sleep(options.gateLimitMs)]);
    const page = match
      ? html(`<p>page ${match[1]}</p>${options.linkHome ? '<a href="/">home</a>' : ''}`, `page ${match[1]}`)
      : html(links, 'home');
    res.writeHead(200, page.headers).end(page.body);
  });
  return { server, openGate: () => openGate() };
}
