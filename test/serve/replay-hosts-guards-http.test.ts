import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { replayHostOrigin, replayPageOrigin } from '../support/replay-hosts.js';
import { startRoutedApp } from '../support/routed-app-site.js';
import { get } from '../support/serve.js';

// The archived sites' own replay hosts over HTTP: the replay port answers exactly the hosts of its
// shape and port (anything else 421, as before), refuses service workers there too, confines pages
// with the same policy (this server's replay hosts and nothing else), lets one archived site read
// another's captures by CORS and no other origin, and sends a top-level document to the UI's frame.

const tmp = tempDir();
const db = tmp.path('hosts.sqlite');
const TS = '20300101000000';
let origin: string;
let serving: ServingArchive;
let port: string;
/** The replay host of the archived site, and of an origin the archive does not hold. */
let site: string;
let other: string;

beforeAll(async () => {
  const app = await startRoutedApp();
  origin = app.url.replace(/\/$/, '');
  const crawl = await runCli(['crawl', `${origin}/index.html`, `${origin}/api/data.json`, '--db', db, '-q', '--max-pages', '3']);
  expect(crawl.code, crawl.stderr).toBe(0);
  await app.close();
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
  port = new URL(serving.replayOrigin).port;
  site = replayHostOrigin(serving.replayOrigin, origin, TS);
  other = replayHostOrigin(serving.replayOrigin, 'http://elsewhere.example', TS);
}, 60_000);

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

/** A request to the replay port naming `host` (a replay host's origin, or a bare `name:port`). */
const at = (host: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  get(serving.replayOrigin, path, { host: host.replace(/^http:\/\//, ''), headers, method });

describe("an archived site's replay host", () => {
  it('replays the capture at its captured path and query; a label of no archived origin is not archived, nothing live', async () => {
    const page = await at(site, '/index.html');
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="to-x"');
    expect(page.body).toContain(`data-url="${origin}/index.html"`);
    const json = await at(site, '/api/data.json');
    expect([json.status, JSON.parse(json.body)]).toEqual([200, { name: 'root-data' }]);
    const missing = await at(other, '/index.html');
    expect(missing.status).toBe(404);
  });

  it('answers exactly the hosts of its own shape and port: anything else is 421', async () => {
    expect((await at(site, '/index.html')).status).toBe(200);
    const label = new URL(site).hostname.split('.')[0]!;
    for (const host of [
      `evil.example:${port}`,
      `x.crawlite.localhost:${port}`,
      `${label}.localhost:${port}`,
      `${label}.crawlite.localhost:${Number(port) + 1}`,
      `${label}.crawlite.localhost.evil.example:${port}`,
      `${label}x.crawlite.localhost:${port}`,
      `${label.slice(0, 15)}aaaaaaaaaaaaaaaa-${label.slice(15)}.crawlite.localhost:${port}`,
      `crawlite.localhost:${port}`,
    ]) {
      expect((await at(host, '/index.html')).status, host).toBe(421);
    }
  });

  it("refuses a service worker's script, as the base origin does", async () => {
    const worker = await at(site, '/index.html', { 'service-worker': 'script' });
    expect(worker.status).toBe(403);
    expect(worker.body).not.toContain('id="to-x"');
  });

  it("confines the page to this server's replay hosts, framed only by the UI", async () => {
    const csp = String((await at(site, '/index.html')).headers['content-security-policy']);
    const sources = new Set(csp.split(/[;\s]+/).filter((token) => /^https?:|\*/.test(token)));
    expect([...sources].sort()).toEqual(
      [serving.replayOrigin, `http://*.crawlite.localhost:${port}`, new URL(serving.uiUrl).origin, replayPageOrigin(serving.uiUrl)].sort(),
    );
    expect(csp).toMatch(
      new RegExp(
        `frame-ancestors 'self' ${serving.replayOrigin} http://\\*\\.crawlite\\.localhost:${port} ${replayPageOrigin(serving.uiUrl)} ${new URL(serving.uiUrl).origin};`,
      ),
    );
    expect(csp).toMatch(new RegExp(`connect-src 'self' ${serving.replayOrigin} http://\\*\\.crawlite\\.localhost:${port} data: blob:;`));
  });

  it("lets another archived site's page read it (CORS), and no other origin", async () => {
    const read = await at(site, '/api/data.json', { origin: other });
    expect(read.headers['access-control-allow-origin']).toBe(other);
    const preflight = await at(
      site,
      '/api/data.json',
      { origin: other, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-app' },
      'OPTIONS',
    );
    expect([preflight.status, preflight.headers['access-control-allow-origin'], preflight.headers['access-control-allow-headers']]).toEqual(
      [204, other, 'x-app'],
    );
    for (const stranger of [
      'http://evil.example',
      'null',
      new URL(serving.uiUrl).origin,
      replayPageOrigin(serving.uiUrl),
      serving.replayOrigin,
      `http://${TS}-aaaaaaaaaaaaaaaa.crawlite.localhost:${Number(port) + 1}`,
    ]) {
      const answer = await at(site, '/api/data.json', { origin: stranger });
      expect(answer.headers['access-control-allow-origin'], stranger).toBeUndefined();
      const asked = await at(site, '/api/data.json', { origin: stranger, 'access-control-request-method': 'GET' }, 'OPTIONS');
      expect([asked.status, asked.headers['access-control-allow-origin']], stranger).toEqual([405, undefined]);
    }
  });

  it("sends a browser's top-level document to the UI's replay page, which frames it", async () => {
    const top = await at(site, '/pkgs/x.html?q=1', { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' });
    expect(top.status).toBe(302);
    expect(top.headers.location).toBe(
      `${replayPageOrigin(serving.uiUrl)}/replay?url=${encodeURIComponent(`${origin}/pkgs/x.html?q=1`)}&ts=${TS}`,
    );
    expect(top.body).not.toContain('ROUTE');
  });
});
