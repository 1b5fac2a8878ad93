import { startServer, type TestServer } from './test-server.js';

/**
 * A site built by scripts, as a reader's browser sees it and a plain crawler does not: the shell page's
 * script fetches a JSON list and builds the links and text from it; each item page fetches its own JSON
 * and POSTs a view count; an image far below the fold loads only once scrolled into view; a link exists
 * only inside a click handler. `itemCount` item pages.
 */
export interface ScriptSite extends TestServer {
  items: number;
  /** The words only the scripts put on the pages. */
  shellWord: string;
  itemWord: (n: number) => string;
  /** Every POST body the site received, by path. */
  posts: Map<string, string[]>;
}

/** A 1x1 PNG. */
export const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const SHELL_JS = `
fetch('/api/items.json').then((r) => r.json()).then((items) => {
  const app = document.getElementById('app');
  const h = document.createElement('h1');
  h.textContent = 'Zanzibar catalogue';
  app.append(h);
  for (const item of items) {
    const a = document.createElement('a');
    a.href = '/item/' + item.id;
    a.textContent = item.name;
    app.append(a);
  }
});
const lazy = document.getElementById('lazy');
new IntersectionObserver((entries, observer) => {
  if (entries.some((entry) => entry.isIntersecting)) { lazy.src = lazy.dataset.src; observer.disconnect(); }
}).observe(lazy);
document.getElementById('secret').addEventListener('click', () => { location.href = '/clicked-only'; });
`;

const ITEM_JS = `
const id = location.pathname.split('/').pop();
fetch('/api/item/' + id + '.json').then((r) => r.json()).then((item) => {
  document.getElementById('app').textContent = item.description;
});
fetch('/api/view', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) });
`;

const page = (body: string) =>
  `<!doctype html><html><head><title>Script site</title><link rel="stylesheet" href="/site.css"></head><body>${body}</body></html>`;

export async function startScriptSite(items = 3): Promise<ScriptSite> {
  const posts = new Map<string, string[]>();
  const itemWord = (n: number) => `quokka${n}`;
  const server = await startServer((req, res, path) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        posts.set(path, [...(posts.get(path) ?? []), body]);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      return;
    }
    const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/') {
      return send(
        'text/html',
        page(
          `<div id="app"></div><button id="secret">more</button><div style="height:4000px"></div><img id="lazy" data-src="/lazy.png" alt=""><script src="/shell.js"></script>`,
        ),
      );
    }
    if (path === '/shell.js') return send('application/javascript', SHELL_JS);
    if (path === '/item.js') return send('application/javascript', ITEM_JS);
    if (path === '/site.css') return send('text/css', 'body { font-family: sans-serif; }');
    if (path === '/lazy.png') return send('image/png', PIXEL);
    if (path === '/api/items.json') {
      return send('application/json', JSON.stringify(Array.from({ length: items }, (_, i) => ({ id: i + 1, name: `Item ${i + 1}` }))));
    }
    const item = /^\/item\/(\d+)$/.exec(path);
    if (item && Number(item[1]) <= items) return send('text/html', page(`<div id="app"></div><script src="/item.js"></script>`));
    const data = /^\/api\/item\/(\d+)\.json$/.exec(path);
    if (data && Number(data[1]) <= items)
      return send('application/json', JSON.stringify({ description: `The ${itemWord(Number(data[1]))} item` }));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  return Object.assign(server, { items, shellWord: 'Zanzibar', itemWord, posts });
}
