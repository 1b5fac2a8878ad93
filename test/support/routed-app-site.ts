import { startServer, type TestServer } from './test-server.js';

/**
 * A small single-page app that routes on its address, as VitePress, React Router or a hand-written
 * `if (location.pathname === ...)` do: each page loads /app.js, which renders into the page what it
 * reads of where it is (the route, search, hash, document.URL, baseURI and referrer), then what three
 * fetches answer (a root-relative, a relative and an absolute URL of its own origin), and on
 * `?push=1` what history.pushState leaves. Live, each shows its own values; replayed, each must
 * show the captured ones. `index.html` links to `/pkgs/x.html?q=1#sec`.
 */
export const ROUTES = ['/', '/index.html', '/pkgs/x.html', '/hash.html'];

/** The elements /app.js fills, by id. */
export const READS = [
  'route',
  'search',
  'hash',
  'url',
  'document-uri',
  'base',
  'referrer',
  'fetch-root',
  'fetch-relative',
  'fetch-absolute',
] as const;

const APP_JS = `(function () {
  function show(id, value) { var node = document.getElementById(id); if (node) node.textContent = value; }
  var known = ${JSON.stringify(ROUTES)};
  show('route', known.indexOf(location.pathname) >= 0 ? 'ROUTE:' + location.pathname : 'NOT FOUND');
  if (location.pathname === '/hash.html') show('hash-route', location.hash.indexOf('#/') === 0 ? 'HASH:' + location.hash.slice(1) : 'NO HASH ROUTE');
  show('search', location.search);
  show('hash', location.hash);
  show('url', document.URL);
  show('document-uri', document.documentURI);
  show('base', document.baseURI);
  show('referrer', document.referrer);
  function ask(id, url) {
    fetch(url).then(function (r) { return r.ok ? r.json().then(function (j) { show(id, j.name); }) : show(id, 'status ' + r.status); })
      .catch(function () { show(id, 'failed'); });
  }
  var origin = document.querySelector('meta[name=origin]').content;
  ask('fetch-root', '/api/data.json');
  ask('fetch-relative', 'data.json');
  ask('fetch-absolute', origin + '/api/x.json');
  if (location.search.indexOf('push=1') >= 0) {
    history.pushState({ n: 1 }, '', '/other');
    show('pushed-path', location.pathname);
    show('pushed-state', JSON.stringify(history.state));
    show('pushed-url', document.URL);
  }
})();
`;

function page(origin: string, title: string, extra = ''): string {
  const slots = [...READS, 'hash-route', 'pushed-path', 'pushed-state', 'pushed-url'].map((id) => `<p id="${id}">waiting</p>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="origin" content="${origin}"><title>${title}</title></head><body>
${extra}
${slots}
<script src="/app.js"></script>
</body></html>`;
}

/** The app on 127.0.0.1 port 0; its JSON names say which file answered. */
export async function startRoutedApp(): Promise<TestServer> {
  return startServer((req, res, path) => {
    const origin = `http://${req.headers.host}`;
    const pathname = path.split('?')[0]!;
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    const json = (name: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name }));
    if (pathname === '/' || pathname === '/index.html')
      return html(
        page(origin, 'home', '<a id="to-x" href="/pkgs/x.html?q=1#sec">x</a> <a id="to-push" href="/pkgs/x.html?push=1">push</a>'),
      );
    if (pathname === '/pkgs/x.html') return html(page(origin, 'x'));
    if (pathname === '/hash.html') return html(page(origin, 'hash routes'));
    if (pathname === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(APP_JS);
    if (pathname === '/api/data.json') return json('root-data');
    if (pathname === '/pkgs/data.json' || pathname === '/data.json') return json(pathname === '/data.json' ? 'top-data' : 'pkgs-data');
    if (pathname === '/api/x.json') return json('api-x');
    return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
}
