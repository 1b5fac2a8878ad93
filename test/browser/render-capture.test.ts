import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, type ChromiumRenderer } from '../../src/browser/index.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { solidPng } from '../support/png.js';
import { renderJob } from '../support/render-job.js';
import { serverPool, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('render-capture.test.ts');

const ITEMS = Buffer.from(
  JSON.stringify([
    { href: '/built/one', text: 'Built by script one' },
    { href: '/built/two', text: 'Built by script two' },
  ]),
);
const STYLE = Buffer.from(
  "@font-face { font-family: Site; src: url(/font.woff2) format('woff2'); } body { font-family: Site, sans-serif; }",
);
// Not a valid font: the browser fetches it all the same, and the archive keeps the bytes as sent.
const FONT = Buffer.from([0x77, 0x4f, 0x46, 0x32, 0, 1, 2, 3, 250, 251, 252, 253]);
const LAZY = solidPng(40, 30, [200, 30, 30]);

// The frame is on another site (localhost, not 127.0.0.1): Chromium would give it a process of its own.
const scriptPage = (framed: string) =>
  `<!doctype html><html><head><title>built</title><link rel="stylesheet" href="/style.css"></head>
<body><p>Typeset in the site's font</p><ul id="items"></ul>
<div style="height: 4000px"></div>
<img id="lazy" data-src="/lazy.png" width="40" height="30" alt="lazy">
<iframe src="FRAMED/frame.html"></iframe><script src="/moved.js"></script>
<script>
fetch('/api/items.json').then((r) => r.json()).then((items) => {
  for (const item of items) {
    const a = document.createElement('a');
    a.href = item.href;
    a.textContent = item.text;
    const li = document.createElement('li');
    li.append(a);
    document.getElementById('items').append(li);
  }
});
new IntersectionObserver((entries, observer) => {
  for (const entry of entries) if (entry.isIntersecting) { entry.target.src = entry.target.dataset.src; observer.disconnect(); }
}).observe(document.getElementById('lazy'));
</script></body></html>`.replace('FRAMED', framed);

const secondPage = `<!doctype html><html><head><link rel="stylesheet" href="/style.css"></head><body><p>Another page</p></body></html>`;

const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

// Chromium starts slowly on a loaded machine: room beyond the default minute.
describeBrowser('rendering a page in Chromium', { timeout: 120_000 }, () => {
  const pool = serverPool();
  let site: TestServer;
  let elsewhere: TestServer;
  let framed: TestServer;
  let framedOrigin: string;
  let renderer: ChromiumRenderer;
  const posted: Buffer[] = [];

  beforeAll(async () => {
    elsewhere = await pool.serve((_req, res) => res.end('tracked'));
    framed = await pool.serve((_req, res, path) => {
      if (path === '/frame.html')
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>in the frame</p><img src="/in-frame.png">');
      if (path === '/in-frame.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(LAZY);
      res.writeHead(404).end();
    });
    framedOrigin = `http://localhost:${framed.port}`;
    site = await pool.serve(async (req, res, path) => {
      const send = (type: string, body: Buffer) => {
        res.writeHead(200, { 'content-type': type, 'content-length': body.length });
        res.end(body);
      };
      if (path === '/api/items.json') return send('application/json', ITEMS);
      if (path === '/style.css') return send('text/css', STYLE);
      if (path === '/font.woff2') return send('font/woff2', FONT);
      if (path === '/lazy.png') return send('image/png', LAZY);
      if (path === '/moved.js') return res.writeHead(302, { location: '/moved-here.js' }).end();
      if (path === '/moved-here.js') return send('text/javascript', Buffer.from('window.moved = true;'));
      if (path === '/api/save' && req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        posted.push(Buffer.concat(chunks));
        return send('application/json', Buffer.from('{"saved":true}'));
      }
      // A long poll that never answers.
      if (path.startsWith('/poll')) return;
      res.writeHead(404).end();
    });
    renderer = createRenderer({ tabs: 3, networkIdleMs: 2000, scrollMs: 3000, loadTimeoutMs: 5000 });
  });

  afterAll(async () => {
    await renderer?.close();
    await pool.closeAll();
  });

  it('captures what a script-built page fetched, with exact bytes, and its document is never requested', async () => {
    const url = `${site.url}built.html`;
    const admits = (other: string) => [new URL(url).origin, framedOrigin].includes(new URL(other).origin);
    const page = await renderer.render(renderJob(url, scriptPage(framedOrigin), admits), new AbortController().signal);

    const body = (path: string) => page.exchanges.find((exchange) => exchange.url === `${site.url}${path.slice(1)}`)?.response.body;
    expect(Buffer.from(body('/api/items.json') ?? [])).toEqual(ITEMS);
    expect(Buffer.from(body('/style.css') ?? [])).toEqual(STYLE);
    expect(Buffer.from(body('/font.woff2') ?? [])).toEqual(FONT);
    expect(Buffer.from(body('/lazy.png') ?? [])).toEqual(LAZY);
    expect(page.html).toContain('href="/built/one"');
    expect(page.html).toContain('Built by script two');
    expect(site.hitCount('/built.html')).toBe(0);
    for (const path of ['/api/items.json', '/style.css', '/font.woff2', '/lazy.png']) expect(site.hitCount(path)).toBe(1);

    const json = page.exchanges.find((exchange) => exchange.url.endsWith('/api/items.json'))!;
    expect(json).toMatchObject({
      method: 'GET',
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        wire: { requestMethod: 'GET', requestTarget: '/api/items.json', reason: 'OK' },
      },
    });
    expect(json.response.wire?.rawHeaders.toString('latin1')).toMatch(/^content-type: application\/json\r\n/im);
    expect(page.exchanges.some((exchange) => exchange.url === url)).toBe(false);

    // Each hop of a redirect is its own exchange; a frame on another site and what it loads are captured too.
    expect(page.exchanges.find((exchange) => exchange.url === `${site.url}moved.js`)).toMatchObject({
      response: { status: 302, location: '/moved-here.js' },
    });
    expect(Buffer.from(body('/moved-here.js') ?? []).toString()).toBe('window.moved = true;');
    expect(page.exchanges.find((exchange) => exchange.url === `${framedOrigin}/frame.html`)).toMatchObject({
      resourceType: 'Document',
      response: { status: 200 },
    });
    expect(Buffer.from(page.exchanges.find((exchange) => exchange.url === `${framedOrigin}/in-frame.png`)?.response.body ?? [])).toEqual(
      LAZY,
    );
    expect(page.screenshot?.data.length).toBeGreaterThan(0);

    // Another page with the same stylesheet: the browser has it; it is not captured again.
    const second = await renderer.render(renderJob(`${site.url}second.html`, secondPage), new AbortController().signal);
    expect(second.html).toContain('Another page');
    expect(second.exchanges.map((exchange) => exchange.url)).not.toContain(`${site.url}style.css`);
    expect(site.hitCount('/second.html')).toBe(0);
  });

  it('refuses what the job does not admit: listed as blocked, never reaching its server, nor through a popup', async () => {
    const page = await renderer.render(
      renderJob(
        `${site.url}tracked.html`,
        `<!doctype html><body><img src="${elsewhere.url}pixel.gif"><script>fetch('${elsewhere.url}beacon'); window.open('${elsewhere.url}popup')</script></body>`,
      ),
      new AbortController().signal,
    );
    expect(page.blocked.map(({ url }) => url)).toEqual(expect.arrayContaining([`${elsewhere.url}pixel.gif`, `${elsewhere.url}beacon`]));
    expect(elsewhere.totalHits()).toBe(0);
  });

  it('captures a POST from the page with its method and body', async () => {
    const sent = '{"note":"kept as sent","n":42}';
    const page = await renderer.render(
      renderJob(
        `${site.url}form.html`,
        `<!doctype html><body><script>fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '${sent}' })</script></body>`,
      ),
      new AbortController().signal,
    );
    const save = page.exchanges.find((exchange) => exchange.url === `${site.url}api/save`);
    expect(save).toMatchObject({ method: 'POST', response: { status: 200 } });
    expect(Buffer.from(save?.requestBody ?? []).toString()).toBe(sent);
    expect(posted.map(String)).toEqual([sent]);
  });

  it('ends a page that never goes quiet at its caps, one that opens a dialog, and one stuck in a script', async () => {
    const endless = `<!doctype html><body><div id="feed"></div><script>
      fetch('/poll?wait');
      setInterval(() => { const p = document.createElement('p'); p.style.height = '900px'; p.textContent = 'more'; document.getElementById('feed').append(p); }, 50);
      window.addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'stay'; });
    </script></body>`;
    const [never, alerting, stuck] = await Promise.all([
      renderer.render(renderJob(`${site.url}endless.html`, endless), new AbortController().signal),
      renderer.render(
        renderJob(
          `${site.url}alert.html`,
          `<!doctype html><body><p>after the alert</p><script>alert('hello'); confirm('sure?');</script></body>`,
        ),
        new AbortController().signal,
      ),
      renderer
        .render(
          renderJob(`${site.url}stuck.html`, `<!doctype html><body><p>stuck</p><script>while (true) {}</script></body>`),
          new AbortController().signal,
        )
        .catch((error: unknown) => error),
    ]);
    // Its DOM cannot be read: the render fails, and does not hang.
    expect(stuck).toMatchObject({ code: 'render_failed' });
    expect(never.capped).toEqual(expect.arrayContaining(['network-idle', 'scroll']));
    expect(never.html).toContain('more');
    expect(alerting.html).toContain('after the alert');
  });
});
