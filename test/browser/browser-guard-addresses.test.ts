import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, type ChromiumRenderer } from '../../src/browser/index.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { renderJob } from '../support/render-job.js';
import { startServer, type TestServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/browser-guard-addresses');

// A page that came from a public address may not reach a local one, whatever its name says and
// whatever the crawl's scope admits (--requisites-any-host): loopback, the LAN, 169.254.169.254.
// The page's document is handed to Chromium as if fetched from a public address.

let renderer: ChromiumRenderer;
let local: TestServer;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  local = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'image/gif' }).end('GIF89a'));
  renderer = createRenderer({ networkIdleMs: 1000, scrollMs: 500, loadTimeoutMs: 5000, screenshot: false });
});

afterAll(async () => {
  await renderer?.close();
  await local?.close();
});

describe.skipIf(!HAS_CHROMIUM)('crawl --browser: local addresses', () => {
  it('a public page reaches no local address, by number or by name, though scope admits every host', async () => {
    const port = local.port;
    const html = `<!doctype html><img src="http://127.0.0.1:${port}/by-number.gif"><img src="http://localhost:${port}/by-name.gif">
      <img src="http://169.254.169.254/latest/meta-data/"><script>fetch('http://10.0.0.5/').catch(() => {}); new SharedWorker('data:text/javascript,fetch("http://127.0.0.1:${port}/from-worker")');</script>`;
    const job = renderJob('http://public.example/page', html, () => true);
    job.document.wire = {
      httpVersion: 'HTTP/1.1',
      reason: 'OK',
      rawHeaders: Buffer.from('content-type: text/html\r\n'),
      requestMethod: 'GET',
      requestTarget: '/page',
      requestHeaders: Buffer.alloc(0),
      remoteIp: '93.184.216.34',
      startedAt: new Date().toISOString(),
    };
    const page = await renderer.render(job, new AbortController().signal);
    expect(local.totalHits()).toBe(0);
    const refused = new Map(page.blocked.map(({ url, reason }) => [url, reason?.code]));
    expect(refused.get(`http://127.0.0.1:${port}/by-number.gif`)).toBe('local_address');
    expect(refused.get(`http://localhost:${port}/by-name.gif`)).toBe('local_address');
    expect(refused.get('http://169.254.169.254/latest/meta-data/')).toBe('local_address');
    expect(refused.get('http://10.0.0.5/')).toBe('local_address');
  }, 60_000);

  it('a page from a local address still loads from its own site', async () => {
    const html = `<!doctype html><img src="/own.gif">`;
    const page = await renderer.render(renderJob(`${local.url}page`, html), new AbortController().signal);
    expect(page.blocked).toEqual([]);
    expect(local.hitCount('/own.gif')).toBe(1);
  }, 60_000);
});
