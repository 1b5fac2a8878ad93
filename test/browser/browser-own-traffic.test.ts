import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { chromiumWithNetLog, readNetLog } from '../support/net-log.js';
import { startServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/browser-own-traffic');

// Chromium's own services (component updates, account checks, autofill's form signatures) ask Google
// from every fresh profile. Read from Chromium's NetLog, the whole browser's network: it opens sockets
// to crawlite's proxy alone and resolves no host name, so nothing it sends can leave the machine, and
// none of it is recorded as what a page asked for.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)("crawl --browser: Chromium's own traffic", () => {
  it('every socket the browser opens is to the crawl proxy, no host name is resolved, and the archive holds only the site', async () => {
    const form =
      '<form method="post" action="/login"><input name="email" autocomplete="email"><input type="password" name="password"><button>in</button></form>';
    const site = await startServer((_req, res, path) => {
      if (!['/', '/a', '/b'].includes(path)) return res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>${path}</title>${form}<a href="/a">a</a><a href="/b">b</a>`);
    });
    try {
      const log = tmp.path('net.json');
      const db = tmp.path('own.sqlite');
      const result = await runCli([
        'crawl',
        site.url,
        '--db',
        db,
        '--browser',
        '-q',
        '--chromium',
        chromiumWithNetLog(tmp.path('chromium.sh'), log),
      ]);
      expect(result.code, result.stderr).toBe(0);
      const net = readNetLog(log);
      expect(net.requested.filter((url) => url.startsWith(site.url)).length, 'the pages loaded through the browser').toBeGreaterThan(0);
      const sockets = new Set(net.connectedTo);
      expect(sockets.size, [...sockets].join(' ')).toBe(1);
      expect([...sockets][0]).toMatch(/^127\.0\.0\.1:\d+$/);
      expect([...sockets][0]).not.toBe(`127.0.0.1:${site.port}`);
      // Names mapped to nothing by the browser's resolver rules are never looked up.
      expect(net.resolved.filter((host) => !/^(https?:\/\/)?(~notfound|127\.0\.0\.1)(:\d+)?$/.test(host))).toEqual([]);
      const hosts = readArchive<{ url: string }>(db, 'SELECT url FROM url').map(({ url }) => new URL(url).host);
      expect([...new Set(hosts)]).toEqual([`127.0.0.1:${site.port}`]);
    } finally {
      await site.close();
    }
  }, 120_000);
});
