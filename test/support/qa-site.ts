import { startServer, type TestServer } from './test-server.js';

/**
 * A site for replay QA: `/` replays as it was captured (a stylesheet, a heading, text, an image), and
 * `/fragile` builds its text and a large coloured block from JSON its script asks for under a new name
 * each load (`/api/words-<time>.json`). A browser crawl captures that JSON, but a replay asks for another
 * name, which the archive does not hold: the block and its words are missing and the request fails.
 */
export interface QaSite extends TestServer {
  /** A word only the fragile page's script puts on it. */
  fragileWord: string;
}

const SWATCH_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const CSS =
  'body { font: 18px/1.5 sans-serif; margin: 2em; background: #f4f1e8; } h1 { color: #1d4e89; } .box { width: 600px; height: 300px; background: #c0392b; color: #fff; padding: 1em; }';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/site.css"></head><body>${body}</body></html>`;

const STEADY = page(
  'Steady page',
  '<h1>Lighthouse keepers of the northern coast</h1><p>The keepers trimmed the wicks at dusk, wound the clockwork that turned the lens, and wrote the weather in the log every four hours.</p><img src="/swatch.png" width="200" height="100" alt=""><p><a href="/fragile">the fragile page</a></p>',
);

const FRAGILE_JS = `
fetch('/api/words-' + Date.now() + '-' + Math.floor(Math.random() * 1e9) + '.json').then((r) => r.json()).then((data) => {
  const box = document.createElement('div');
  box.className = 'box';
  box.textContent = data.words;
  document.getElementById('app').append(box);
});
`;

export async function startQaSite(): Promise<QaSite> {
  const fragileWord = 'marmalade';
  const words = `${fragileWord} ${Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')}`;
  const server = await startServer((_req, res, path) => {
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(STEADY);
    if (path === '/fragile') {
      return res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(page('Fragile page', '<h1>Fragile</h1><div id="app"></div><script src="/fragile.js"></script>'));
    }
    if (path === '/site.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(CSS);
    if (path === '/fragile.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(FRAGILE_JS);
    if (path === '/swatch.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(SWATCH_PNG);
    if (path.startsWith('/api/words-')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ words }));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  return { ...server, fragileWord };
}
