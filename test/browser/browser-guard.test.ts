import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { runCli, type CliRun } from '../support/cli.js';
import { startServer, type TestServer } from '../support/test-server.js';
import { startTripwires, type Tripwires } from '../support/tripwires.js';

noticeIfNoBrowser('browser/browser-guard');

// A hostile site crawled with --browser: its pages reach for a TCP and a UDP port outside the crawl on
// the same machine with every API a page has (workers of every kind, WebSocket, WebRTC, preconnect,
// prefetch, speculation rules, beacons, fonts), try to write to the site, and navigate away. Nothing
// may reach the ports, nothing may be written, and what was refused is in the archive with its reason.

const tmp = tempDir();
let site: TestServer;
let wires: Tripwires;
let crawled: CliRun;
let db: string;
const methods: string[] = [];

function pages(trip: string, udp: number): Record<string, string> {
  return {
    '/': ['shared-worker', 'dedicated-worker', 'socket', 'hints', 'webrtc', 'writes', 'leave', 'leave-out']
      .map((path) => `<a href="/${path}">${path}</a>`)
      .join(''),
    '/shared-worker': `<title>shared worker</title><script>new SharedWorker('/shared.js');</script>`,
    '/dedicated-worker': `<title>dedicated worker</title><script>new Worker('/dedicated.js');</script>`,
    '/socket': `<title>socket</title><script>const ws = new WebSocket('ws://${trip}/socket'); ws.onerror = () => {};</script>`,
    '/hints': `<title>hints</title>
      <link rel="preconnect" href="http://${trip}"><link rel="dns-prefetch" href="//elsewhere.invalid">
      <link rel="prefetch" href="http://${trip}/prefetch">
      <script type="speculationrules">{"prefetch":[{"source":"list","urls":["http://${trip}/speculation"]}]}</script>
      <style>@font-face { font-family: x; src: url(http://${trip}/font.woff2); } body { font-family: x; }</style>
      <p>text</p><script>navigator.sendBeacon('http://${trip}/beacon', 'x');</script>`,
    '/webrtc': `<title>webrtc</title><script>
      const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udp}' }, { urls: 'turn:127.0.0.1:${udp}?transport=udp', username: 'u', credential: 'p' }] });
      pc.createDataChannel('x');
      pc.createOffer().then((offer) => pc.setLocalDescription(offer));
    </script>`,
    '/writes': `<title>writes</title><script>
      for (const method of ['PUT', 'PATCH', 'DELETE', 'PROPFIND']) fetch('/api/state', { method, body: method === 'DELETE' ? undefined : 'x' }).catch(() => {});
      fetch('/api/search', { method: 'POST', body: 'q=1' }).catch(() => {});
    </script>`,
    '/leave': `<title>before leaving</title><p>what was here</p><script>setTimeout(() => { location.href = '/elsewhere'; }, 50);</script>`,
    '/leave-out': `<title>before leaving too</title><p>stays</p><script>setTimeout(() => { location.href = 'http://${trip}/taken'; }, 50);</script>`,
    '/elsewhere': `<title>elsewhere</title><p>the next page</p>`,
  };
}

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  wires = await startTripwires();
  const trip = `127.0.0.1:${wires.tcpPort}`;
  const html = pages(trip, wires.udpPort);
  site = await startServer((req, res, path) => {
    methods.push(`${req.method} ${path}`);
    if (path === '/shared.js' || path === '/dedicated.js') {
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(`
        fetch('http://${trip}/from${path.replace('.js', '')}-worker').catch(() => {});
        try { const ws = new WebSocket('ws://${trip}/worker-socket'); ws.onerror = () => {}; } catch {}
        onconnect = () => {};`);
    }
    if (path.startsWith('/api/')) return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const page = html[path];
    if (page === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${page}`);
  });
  db = tmp.path('guarded.sqlite');
  crawled = await runCli(['crawl', site.url, '--db', db, '--browser', '-q', '-c', '2']);
}, 240_000);

afterAll(async () => {
  await site?.close();
  await wires?.close();
  tmp.cleanup();
});

const path = (url: string) => new URL(url).pathname;

describe.skipIf(!HAS_CHROMIUM)('crawl --browser: a page reaches nothing outside the crawl', () => {
  it('the crawl completes every page', () => {
    expect(crawled.code, crawled.stderr).toBe(0);
    const done = readArchive<{ url: string }>(db, "SELECT url FROM url WHERE kind = 'page' AND state = 'done' ORDER BY url").map(
      ({ url }) => path(url),
    );
    expect(done).toEqual([
      '/',
      '/dedicated-worker',
      '/elsewhere',
      '/hints',
      '/leave',
      '/leave-out',
      '/shared-worker',
      '/socket',
      '/webrtc',
      '/writes',
    ]);
  });

  it('no connection of any kind reaches a port outside the crawl: workers, WebSockets, hints, prefetches, fonts, beacons', () => {
    expect(wires.connections).toEqual([]);
  });

  it('WebRTC sends no datagram around the proxy', () => {
    expect(wires.datagrams).toBe(0);
  });

  it('records what was refused as skipped, with the reason', () => {
    const skipped = readArchive<{ url: string; error_code: string }>(db, "SELECT url, error_code FROM url WHERE state = 'skipped'");
    const outside = skipped.filter(({ url }) => new URL(url).port === String(wires.tcpPort));
    expect(outside.length).toBeGreaterThan(0);
    for (const row of outside) expect(row.error_code).toBe('out_of_scope');
    // What only the proxy could see: a shared worker's fetch.
    expect(outside.map(({ url }) => path(url))).toContain('/from/shared-worker');
  });
});

describe.skipIf(!HAS_CHROMIUM)('crawl --browser: a page never writes to the site', () => {
  it('PUT, PATCH, DELETE and other methods never reach the site; GET and POST do', () => {
    const api = methods.filter((line) => line.includes('/api/'));
    expect(api.filter((line) => !/^(GET|POST|HEAD|OPTIONS) /.test(line))).toEqual([]);
    expect(api).toContain('POST /api/search');
  });

  it('each refused write is recorded with its reason', () => {
    const refused = readArchive<{ url: string; error_code: string }>(db, "SELECT url, error_code FROM url WHERE url LIKE '%/api/state'");
    expect(refused).toEqual([expect.objectContaining({ error_code: 'write_refused' })]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('crawl --browser: a page that navigates its top frame', () => {
  it('is kept as it rendered before it left, and where it went is a link', () => {
    const rows = readArchive<{ url: string; title: string }>(db, "SELECT url, title FROM pages WHERE url LIKE '%/leave%' ORDER BY url");
    expect(rows.map(({ url, title }) => [path(url), title])).toEqual([
      ['/leave', 'before leaving'],
      ['/leave-out', 'before leaving too'],
    ]);
    const links = readArchive<{ target: string }>(db, "SELECT to_url AS target FROM links WHERE from_url LIKE '%/leave'");
    expect(links.map(({ target }) => path(target))).toContain('/elsewhere');
  });

  it('the page it went to is fetched once, by the crawl', () => {
    expect(site.hitCount('/elsewhere')).toBe(1);
  });
});
