import type { Browser, BrowserContext, BrowserContextOptions, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { watchChildren } from '../support/process-tree.js';
import { freePort, startServe } from '../support/serve.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// A page elsewhere in the same browser sends the UI a query (a no-cors fetch, an <img>, a <script>)
// and learns the archive's contents from how long the answer took, without reading a byte of it.
// Each query runs in a process of serve's own: the process tree shows whether one ran, and the
// browser's own record of the responses shows that the request did reach serve and was refused.

noticeIfNoBrowser('serve/ui-own-pages-only');

/** Endless, stopped at --search-timeout: a query process lives for seconds when it runs. */
const SLOW = 'with recursive c(n) as (select 1 union all select n + 1 from c) select count(*) from c';
const TIMEOUT_MS = 3000;

/**
 * Every way a page can send a GET without CORS, at each UI address that runs a query, as a script
 * expression: a Promise that resolves once each request has had its answer (or failed).
 */
const attack = (ui: string) => `(function () {
  var ui = ${JSON.stringify(ui)}, q = encodeURIComponent(${JSON.stringify(SLOW)});
  function load(tag, src) { return new Promise(function (done) { var e = document.createElement(tag); e.onload = e.onerror = function () { done(tag); }; e.src = src; document.body.appendChild(e); }); }
  function send(path) { return fetch(ui + path, { mode: 'no-cors', credentials: 'include' }).then(function () { return 'fetch'; }, function () { return 'fetch'; }); }
  return Promise.all([send('/sql?sql=' + q), send('/search?mode=fts&q=a*'), load('img', ui + '/sql.csv?sql=' + q), load('script', ui + '/sql.json?sql=' + q)]);
})()`;

describe.skipIf(!HAS_CHROMIUM)('the UI answers its own pages only', () => {
  const tmp = tempDir();
  let ui: string;
  let serve: Awaited<ReturnType<typeof startServe>>;
  let elsewhere: TestServer;
  let browser: Browser;
  let attackUrl: string;

  beforeAll(async () => {
    // The port is chosen first, so the archived page can name it; serve listens there.
    const uiPort = await freePort();
    ui = `http://127.0.0.1:${uiPort}`;
    const page = (extra = '') =>
      `<!doctype html><title>attack</title><body><p id="done"></p><script>${attack(ui)}.then(function (sent) { document.getElementById('done').textContent = sent.join(' '); });${extra}</script></body>`;
    // Archived, the same page then takes its own frame to the UI's SQL page.
    const archived = `<!doctype html><title>attack</title><body><script>${attack(ui)}.then(function () { location.href = ${JSON.stringify(`${ui}/sql?sql=`)} + encodeURIComponent(${JSON.stringify(SLOW)}); });</script></body>`;
    const site = await startServer((_req, res, path) => {
      if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><a href="/attack.html">attack</a>');
      else if (path === '/attack.html') res.writeHead(200, { 'content-type': 'text/html' }).end(archived);
      else res.writeHead(404).end();
    });
    const db = tmp.path('attack.sqlite');
    try {
      attackUrl = `${site.url}attack.html`;
      expect(await runCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots', '--delay', '0'])).toMatchObject({ code: 0 });
    } finally {
      await site.close();
    }
    serve = await startServe(db, ['--port', String(uiPort), '--search-timeout', String(TIMEOUT_MS)]);
    expect(serve.ui).toBe(`${ui}/`);
    elsewhere = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page()));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await elsewhere?.close();
    await serve?.stop();
    tmp.cleanup();
  });

  /** `answers`: the UI's answers so far; `queryRan()`: whether a query process has been seen so far. */
  type Act = (context: BrowserContext, watching: { answers: readonly string[]; queryRan: () => boolean }) => Promise<void>;

  /** Runs `act` in a fresh profile; returns the UI's answers the browser saw, and whether a query process ran meanwhile. */
  async function watch(act: Act, options: BrowserContextOptions = {}): Promise<{ answers: string[]; queryRan: boolean }> {
    const context = await browser.newContext(options);
    const answers: string[] = [];
    const outcomes = new Map<string, string>();
    const record = (address: string, outcome: string) => {
      const url = new URL(address);
      if (url.origin !== ui || url.pathname === '/replay' || url.pathname.startsWith('/assets/') || outcomes.has(url.pathname)) return;
      outcomes.set(url.pathname, outcome);
      answers.push(`${outcome} ${url.pathname}`);
    };
    context.on('response', (response: Response) => record(response.url(), String(response.status())));
    // An <img> or <script> given an HTML page (as every refusal is) is cut by the browser (ORB) before the page sees a status.
    context.on('requestfailed', (request) =>
      record(request.url(), request.failure()?.errorText === 'net::ERR_BLOCKED_BY_ORB' ? 'blocked' : `failed`),
    );
    const children = watchChildren(serve.pid);
    try {
      await act(context, { answers, queryRan: () => children.seen() > 0 });
    } finally {
      await context.close();
    }
    // A query process that started lives for TIMEOUT_MS: any that ran is still there to be seen.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { answers: answers.sort(), queryRan: children.stop().length > 0 };
  }

  /** What a refused attack leaves: a 403 for each fetch, and the <img> and <script> cut by the browser on seeing the 403 page. */
  const REFUSED = ['403 /search', '403 /sql', 'blocked /sql.csv', 'blocked /sql.json'];

  it('a page on another origin gets a 403 from each query address, and no query runs', async () => {
    const seen = await watch(async (context, { answers, queryRan }) => {
      const page = await context.newPage();
      await page.goto(elsewhere.url, { waitUntil: 'commit' });
      await waitFor('each request to be answered, or a query to run', () => answers.length === REFUSED.length || queryRan(), 20_000);
    });
    expect(seen.queryRan, 'a query process ran').toBe(false);
    expect(seen.answers).toEqual(REFUSED);
  });

  it('a replayed page cannot reach the UI at all, and a script on the replay origin gets the same 403s: no query runs', async () => {
    const replayed = await watch(async (context) => {
      const page = await context.newPage();
      const refusals: string[] = [];
      page.on('console', (message) => void refusals.push(message.text()));
      await page.goto(`${serve.replay}/20300101000000/${attackUrl}`);
      // Its requests go to the replay origin (its CSP, the shim), and the UI's frame-src stops its frame's navigation to the UI.
      // Reported as the UI's origin only: the replay page that frames the page is on another name (the replay hosts' domain).
      const framing = `Framing '${ui}/`;
      await waitFor(
        'the replayed page to try to take its frame to the SQL page',
        () => refusals.some((text) => text.startsWith(framing)),
        20_000,
        () => refusals.join('\n'),
      );
    });
    expect(replayed.answers).toEqual([]);
    expect(replayed.queryRan).toBe(false);
    // A script on the replay origin that got past those (here the browser is told to ignore every CSP, the replay
    // origin's sandbox included, and the script runs on its 404 page) is refused by serve itself.
    const seen = await watch(
      async (context, { answers, queryRan }) => {
        const page = await context.newPage();
        await page.goto(`${serve.replay}/no-such-path`);
        void page.evaluate(attack(ui)).catch(() => {});
        await waitFor('each request to be answered, or a query to run', () => answers.length === REFUSED.length || queryRan(), 20_000);
      },
      { bypassCSP: true },
    );
    expect(seen.queryRan, 'a query process ran').toBe(false);
    expect(seen.answers).toEqual(REFUSED);
  });

  it("the UI's own pages still run queries, and so does a client that sends no Fetch Metadata", async () => {
    const seen = await watch(async (context) => {
      const page = await context.newPage();
      await page.goto(`${ui}/sql?sql=${encodeURIComponent('select 40 + 2 as answer')}`);
      expect(await page.locator('#results td').first().textContent()).toBe('42');
      const status = await page.evaluate((sql) => fetch(`/sql?sql=${encodeURIComponent(sql)}`).then((r) => r.status), SLOW);
      expect([200, 503]).toContain(status);
    });
    expect(seen.answers).toContain('200 /sql');
    // The observer sees a query that runs.
    expect(seen.queryRan).toBe(true);
    const plain = await fetch(`${ui}/sql.csv?sql=${encodeURIComponent('select 7 as n')}`);
    expect([plain.status, await plain.text()]).toEqual([200, 'n\r\n7\r\n']);
  });
});
