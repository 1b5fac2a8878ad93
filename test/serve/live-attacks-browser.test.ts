import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, launchChromium, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { controlRequests, liveToken, writeCrawlLive } from '../support/live-rows.js';
import { freePort } from '../support/serve.js';
import { startServer, type TestServer } from '../support/test-server.js';

// Pages that try to steer the crawl through the live page's controls, or read its data: an archived
// page as serve replays it, a script on the replay origin that every Content-Security-Policy was lifted
// for (given the live page's real token), and a page of another 127.0.0.1 port (given the token too).
// Every way a page sends a POST is tried; control_request stays empty and nothing of /api/live is read.

noticeIfNoBrowser('serve/live-attacks-browser');

/**
 * Every way a page can send the control, and read the live page or its data, as a script expression:
 * a Promise of one word per try ("read" would be a leak; a POST's status or "opaque" says it was sent).
 */
const attack = (ui: string, token: string) => `(function () {
  var ui = ${JSON.stringify(ui)}, token = ${JSON.stringify(token)}, body = JSON.stringify({ command: 'pause' });
  function sent(name, p) { return p.then(function (r) { return name + ':' + (r.type === 'opaque' ? 'opaque' : r.status); }, function () { return name + ':failed'; }); }
  function read(name, p) { return p.then(function () { return name + ':read'; }, function () { return name + ':failed'; }); }
  return Promise.all([
    sent('json', fetch(ui + '/api/live/control', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-crawlite-token': token }, body: body })),
    sent('no-cors', fetch(ui + '/api/live/control', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: body })),
    sent('preview', fetch(ui + '/api/live/preview', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ pattern: '.' }) })),
    read('data', fetch(ui + '/api/live', { credentials: 'include' }).then(function (r) { return r.json(); })),
    read('page', fetch(ui + '/live', { credentials: 'include' }).then(function (r) { return r.text(); })),
    new Promise(function (done) {
      try { done('beacon:' + navigator.sendBeacon(ui + '/api/live/control', new Blob([body], { type: 'text/plain' }))); } catch (e) { done('beacon:threw'); }
    }),
    new Promise(function (done) {
      var frame = document.createElement('iframe');
      frame.name = 'sink';
      document.body.appendChild(frame);
      var form = document.createElement('form');
      form.method = 'POST';
      form.action = ui + '/api/live/control';
      form.enctype = 'text/plain';
      form.target = 'sink';
      var input = document.createElement('input');
      input.name = '{"command":"pause","x":"';
      input.value = '"}';
      form.appendChild(input);
      document.body.appendChild(form);
      frame.onload = function () { done('form:submitted'); };
      setTimeout(function () { done('form:submitted'); }, 3000);
      form.submit();
    }),
  ]);
})()`;

/** What each try of a refused page comes to: nothing read, and each POST that left the browser refused. */
const expectRefused = (results: string[]) => {
  expect(results.filter((result) => result.endsWith(':read'))).toEqual([]);
  for (const result of results.filter((word) => /^(json|no-cors|preview):/.test(word))) expect(result).toMatch(/:(failed|opaque|403)$/);
};

describe.skipIf(!HAS_CHROMIUM)("the live page's controls answer the live page only", () => {
  const tmp = tempDir();
  const db = tmp.path('attack.sqlite');
  let ui: string;
  let serving: ServingArchive;
  let elsewhere: TestServer;
  let browser: Browser;
  let attackUrl: string;
  let token: string;
  /** Every answer serve gave to a control or preview POST, as "<status> <path>". */
  const answers: string[] = [];

  beforeAll(async () => {
    // The port is chosen first, so the archived page can name it.
    const uiPort = await freePort();
    ui = `http://127.0.0.1:${uiPort}`;
    const archived = `<!doctype html><title>attack</title><body><p id="done"></p><script>${attack(ui, 'guessed')}.then(function (r) { document.getElementById('done').textContent = r.join(' '); });</script></body>`;
    const site = await startServer((_req, res, path) => {
      if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><a href="/attack.html">attack</a>');
      else if (path === '/attack.html') res.writeHead(200, { 'content-type': 'text/html' }).end(archived);
      else res.writeHead(404).end();
    });
    try {
      attackUrl = `${site.url}attack.html`;
      expect(await runCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots', '--delay', '0'])).toMatchObject({ code: 0 });
    } finally {
      await site.close();
    }
    // As if a crawl ran: the controls would be applied.
    writeCrawlLive(db, { state: 'running' });
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: uiPort });
    expect(serving.uiUrl).toBe(`${ui}/`);
    token = await liveToken(serving.uiUrl);
    const page = `<!doctype html><title>elsewhere</title><body><p id="done"></p><script>${attack(ui, token)}.then(function (r) { document.getElementById('done').textContent = r.join(' '); });</script></body>`;
    elsewhere = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await elsewhere?.close();
    await serving?.close();
    tmp.cleanup();
  });

  /** Runs `act` in a fresh profile, noting serve's answers to the POSTs that reached it. */
  async function inContext(act: (context: BrowserContext) => Promise<void>, options: BrowserContextOptions = {}): Promise<void> {
    const context = await browser.newContext(options);
    context.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin === ui && response.request().method() === 'POST') answers.push(`${response.status()} ${url.pathname}`);
    });
    try {
      await act(context);
    } finally {
      await context.close();
    }
  }

  /** The words the attack wrote into the page (or the frame) once every try ended. */
  const results = async (page: Pick<Page, 'locator'>) => {
    const done = page.locator('#done');
    await expect.poll(() => done.textContent().catch(() => ''), { timeout: 20_000 }).not.toBe('');
    return ((await done.textContent()) ?? '').split(' ');
  };

  it('a page of another origin, holding the real token, can neither send a control nor read the live data', async () => {
    await inContext(async (context) => {
      const page = await context.newPage();
      await page.goto(elsewhere.url);
      const seen = await results(page);
      expect(seen).toHaveLength(7);
      expectRefused(seen);
      // The JSON POST with the token never left the browser: its CORS preflight found no answer to allow it.
      expect(seen).toContain('json:failed');
    });
    expect(controlRequests(db)).toEqual([]);
  }, 60_000);

  it('an archived page replayed by serve can neither send a control nor read the live data', async () => {
    await inContext(async (context) => {
      const page = await context.newPage();
      // Moved to the UI's replay page, which frames the capture on its site's own replay host.
      await page.goto(`${serving.replayOrigin}/20300101000000/${attackUrl}`);
      expectRefused(await results(page.frameLocator('#replay')));
    });
    expect(controlRequests(db)).toEqual([]);
  }, 60_000);

  it('a script on the replay origin past every CSP, holding the real token, is refused by serve itself', async () => {
    await inContext(
      async (context) => {
        const page = await context.newPage();
        await page.goto(`${serving.replayOrigin}/no-such-path`);
        const seen = (await page.evaluate(attack(ui, token))) as string[];
        expectRefused(seen);
      },
      { bypassCSP: true },
    );
    expect(controlRequests(db)).toEqual([]);
    // Some of those POSTs did reach serve (a no-cors fetch, a beacon, a form): each was refused.
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => !/^(403|415) /.test(answer))).toEqual([]);
  }, 60_000);

  it('the live page itself, in the same browser, sends the control', async () => {
    await inContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${ui}/live`);
      await page.locator('#live-pause').click();
      await expect.poll(() => controlRequests(db).length, { timeout: 10_000 }).toBe(1);
    });
    expect(controlRequests(db)).toMatchObject([{ requested_by: 'serve', command: 'pause' }]);
  }, 60_000);
});
