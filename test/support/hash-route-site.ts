import { startServer, type TestServer } from './test-server.js';

/**
 * Hash-routed apps, as docsify and TiddlyWiki are: one document whose script shows another page at
 * each fragment.
 * - `/`: routes `#/`, `#/a`, `#/b`, `#/b/c`, each rendered from `/content/<route>.json` fetched when the
 *   route is shown, with links to each route and a plain anchor `#top` (which the router ignores).
 * - `/wiki.html`: tiddlers `#Alpha`, `#Beta` shown from the page's own script on hashchange (`Welcome` without a fragment).
 * - `/plain.html`: a plain page with an in-page anchor `#section-2` and a do-nothing `#!` link, whose
 *   script listens for hashchange only to mark the heading (no text changes).
 */
export interface HashRouteSite extends TestServer {
  /** The word only each route shows, by route (`/` for the home route, `Alpha` for a tiddler). */
  word: Record<string, string>;
}

const ROUTES: Record<string, { title: string; word: string }> = {
  '/': { title: 'Home', word: 'wombatish' },
  '/a': { title: 'Route A', word: 'axolotl' },
  '/b': { title: 'Route B', word: 'bandicoot' },
  '/b/c': { title: 'Route C', word: 'cassowary' },
};

const TIDDLERS: Record<string, string> = { Welcome: 'start here', Alpha: 'narwhal', Beta: 'pangolin' };

const APP_JS = `
function render() {
  if (location.hash !== '' && !location.hash.startsWith('#/')) return;
  const route = location.hash.slice(1) || '/';
  fetch('/content' + (route === '/' ? '/home' : route) + '.json').then((r) => r.json()).then((page) => {
    document.getElementById('app').innerHTML = '<h1>' + page.title + '</h1><p>' + page.text + '</p>';
  });
}
window.addEventListener('hashchange', render);
render();
`;

const WIKI_JS = `
const tiddlers = ${JSON.stringify(TIDDLERS)};
function show() {
  const name = decodeURIComponent(location.hash.slice(1)) || 'Welcome';
  document.getElementById('story').textContent = name + ': ' + (tiddlers[name] || 'missing');
}
window.addEventListener('hashchange', show);
show();
`;

const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

export async function startHashRouteSite(): Promise<HashRouteSite> {
  const server = await startServer((_req, res, path) => {
    const send = (type: string, body: string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/') {
      const nav = ['#/', '#/a', '#/b', '#/b/c', '#top'].map((href) => `<a href="${href}">${href}</a>`).join(' ');
      return send(
        'text/html',
        html(
          'Hash app',
          `<a id="top"></a><nav>${nav} <a href="/wiki.html">wiki</a> <a href="/plain.html">plain</a></nav><main id="app"></main><script src="/app.js"></script>`,
        ),
      );
    }
    if (path === '/app.js') return send('application/javascript', APP_JS);
    const content = /^\/content(\/.*)\.json$/.exec(path);
    const route = content && ROUTES[content[1] === '/home' ? '/' : content[1]!];
    if (route)
      return send('application/json', JSON.stringify({ title: route.title, text: `This is ${route.title}, the ${route.word} page.` }));
    if (path === '/wiki.html') {
      const links = ['Alpha', 'Beta'].map((name) => `<a href="#${name}">${name}</a>`).join(' ');
      return send('text/html', html('Wiki', `<nav>${links}</nav><div id="story"></div><script src="/wiki.js"></script>`));
    }
    if (path === '/wiki.js') return send('application/javascript', WIKI_JS);
    if (path === '/plain.html') {
      const script = `<script>window.addEventListener('hashchange', () => document.querySelector('h2').classList.add('current'));</script>`;
      return send(
        'text/html',
        html(
          'Plain',
          `<a href="#section-2">to section 2</a> <a href="#!">nothing</a><h2 id="section-2">Section 2</h2><p>Plain text here.</p>${script}`,
        ),
      );
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const word: Record<string, string> = Object.fromEntries(Object.entries(ROUTES).map(([route, { word }]) => [route, word]));
  for (const [name, tiddler] of Object.entries(TIDDLERS)) word[name] = tiddler;
  return Object.assign(server, { word });
}
