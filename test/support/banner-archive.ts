import { expect } from 'vitest';
import { addCrawl } from './captures.js';
import { execCli } from './cli.js';
import { html, routes, startServer } from './test-server.js';

// An archive for the replay bar and fuzzy matching: a small site crawled for real by the built CLI,
// then later captures of two pages added as a re-crawl leaves them (captures.ts). `/` has three
// captures, `/a` two; `/list` exists plain and with a cache-buster, `/search` only with its query;
// `/forger` and `/forger-nested` are hostile pages that lie to the UI about what they show. They
// name archived URLs from a replay path, or on a site's own replay host from document.URL.

export const LATER_AT = '2030-01-02T00:00:00.000Z';
export const LATEST_AT = '2030-01-03T00:00:00.000Z';
export const HOME_TEXTS = ['Home, first capture', 'Home, second capture', 'Home, third capture'];
export const A_TEXTS = ['Page A, first capture', 'Page A, second capture'];
export const APPLES = 'Results for apples';
export const LIST_PLAIN = 'The plain list';
export const LIST_LATER = 'The plain list, later';
export const LIST_BUSTED = 'The cache-busted list';
/** What the hostile pages try to write into the UI's document. */
export const PWNED = 'PWNED-BY-ARCHIVED-PAGE';

const home = (text: string) =>
  html(
    `<h1 id="title">${text}</h1><a id="to-a" href="/a">to a</a> <a href="/b">b</a> <a href="/list">list</a> <a href="/list?_=123">list busted</a> <a href="/search?q=apples">apples</a> <a href="/forger">forger</a> <a href="/forger-nested">nested</a> <a href="/forger-fuzzy">fuzzy forger</a>`,
    'Home',
  );
const page = (text: string) => html(`<h1 id="title">${text}</h1><a id="home" href="/">home</a>`, text);

/**
 * The hostile page: tries to write into the UI's document; the first time the UI asks the frame where
 * it is, posts forged messages to the UI as the shim's (markup as a URL, a URL the archive lacks, a bad
 * timestamp, markup as the message); and each time, answers after the shim with a real capture (of
 * `/a`, its latest), which the bar may show: that is the most a page can make it do. What it met is
 * written into its own `#result`.
 */
const FORGER = html(
  `<p id="result">running</p><script>
  var result = [];
  try { parent.document.body.innerHTML = '${PWNED}'; result.push('wrote parent'); } catch (e) { result.push('parent.document: ' + e.name); }
  try { top.document.title = '${PWNED}'; result.push('wrote top'); } catch (e) { result.push('top.document: ' + e.name); }
  function archived(path) { var a = document.createElement('a'); a.href = path; var at = new URL(a.href).pathname; return /^\\/\\d+\\//.test(at) ? at.replace(/^\\/\\d+\\//, '') : new URL(path, document.URL).href; }
  var forged = false;
  window.addEventListener('message', function (event) {
    if (event.data !== 'crawlite:where') return;
    // Posted once the UI asks, so surely while it listens: posted as the page loads, they could come before.
    if (!forged) {
      forged = true;
      parent.postMessage({ type: 'crawlite:replay', url: 'https://evil.invalid/<img src=x id=${PWNED}>', ts: '20300102000000' }, '*');
      parent.postMessage({ type: 'crawlite:replay', url: archived('/a'), ts: '<b>${PWNED}</b>' }, '*');
      parent.postMessage('<img src=x id="${PWNED}">', '*');
      parent.postMessage({ type: 'crawlite:replay', url: 'https://nowhere.invalid/${PWNED}', ts: '20300102000000' }, '*');
    }
    setTimeout(function () {
      parent.postMessage({ type: 'crawlite:replay', url: archived('/a'), ts: '20300103000000' }, '*');
      document.getElementById('result').textContent = result.join('; ');
    }, 0);
  });
  </script>`,
  'Forger',
);

/**
 * A page whose own frame (same replay origin, so not the UI's frame) posts a real capture of `/b` to
 * the top document; then the page itself posts `/a`'s: the bar must follow the second only.
 */
const FORGER_NESTED = html(
  `<p id="result">running</p><iframe id="inner" srcdoc="<p>inner</p>"></iframe><script>
  var inner = document.getElementById('inner');
  function target(path) { var a = document.createElement('a'); a.href = path; var at = new URL(a.href).pathname; return /^\\/\\d+\\//.test(at) ? at.replace(/^\\/\\d+\\//, '') : new URL(path, document.URL).href; }
  inner.addEventListener('load', function () {
    var script = inner.contentDocument.createElement('script');
    script.textContent = "top.postMessage({ type: 'crawlite:replay', url: " + JSON.stringify(target('/b')) + ", ts: '20300103000000' }, '*'); parent.postMessage('inner-done', '*');";
    inner.contentDocument.body.appendChild(script);
  });
  window.addEventListener('message', function (event) {
    if (event.data !== 'inner-done') return;
    parent.postMessage({ type: 'crawlite:replay', url: target('/a'), ts: '20300103000000' }, '*');
    document.getElementById('result').textContent = 'posted';
  });
  </script>`,
  'Nested forger',
);

/**
 * A page that names, each time the UI asks where it is, a URL of its own making that a fuzzy match
 * would take to a real capture (`/a` with a tracking parameter carrying its text).
 */
const FORGER_FUZZY = html(
  `<p id="result">running</p><script>
  function archived(path) { var a = document.createElement('a'); a.href = path; var at = new URL(a.href).pathname; return /^\\/\\d+\\//.test(at) ? at.replace(/^\\/\\d+\\//, '') : new URL(path, document.URL).href; }
  window.addEventListener('message', function (event) {
    if (event.data !== 'crawlite:where') return;
    parent.postMessage({ type: 'crawlite:replay', url: archived('/a') + '?utm_source=${PWNED}', ts: '20300103000000' }, '*');
    document.getElementById('result').textContent = 'posted';
  });
  </script>`,
  'Fuzzy forger',
);

/** Crawls the site into `db`, then adds the later captures; returns the site's origin (its server is closed). */
export async function makeBannerArchive(db: string): Promise<string> {
  const server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': home(HOME_TEXTS[0]!),
      '/a': page(A_TEXTS[0]!),
      '/b': page('Page B'),
      '/list': page(LIST_PLAIN),
      '/list?_=123': page(LIST_BUSTED),
      '/search?q=apples': page(APPLES),
      '/forger': FORGER,
      '/forger-nested': FORGER_NESTED,
      '/forger-fuzzy': FORGER_FUZZY,
    }),
  );
  const origin = server.url.replace(/\/$/, '');
  try {
    const crawl = await execCli(['crawl', server.url, '--db', db, '-q']);
    expect(crawl.stderr).toBe('');
    expect(crawl.code).toBe(0);
  } finally {
    await server.close();
  }
  const at = (path: string) => `${origin}${path}`;
  const body = (route: { body?: string | Buffer }) => route.body as string;
  addCrawl(db, [
    { url: at('/'), fetchedAt: LATER_AT, body: body(home(HOME_TEXTS[1]!)) },
    { url: at('/list'), fetchedAt: LATER_AT, body: body(page(LIST_LATER)) },
  ]);
  addCrawl(db, [
    { url: at('/'), fetchedAt: LATEST_AT, body: body(home(HOME_TEXTS[2]!)) },
    { url: at('/a'), fetchedAt: LATEST_AT, body: body(page(A_TEXTS[1]!)) },
    { url: at('/b'), fetchedAt: LATEST_AT },
  ]);
  return origin;
}
