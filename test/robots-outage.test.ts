import { copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, serverPool } from './support/test-server.js';

// A site whose robots.txt is out during the first run and back for the next: the archive must not stay empty.
const tmp = tempDir();
const servers = serverPool();
afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

const SITE = {
  '/': html('<a href="/a">a</a> <a href="/private/x">x</a>'),
  '/a': html('a'),
  '/private/x': html('x'),
};
const ROBOTS_UP = { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private/\n' };

const states = (db: string) =>
  readArchive<{ url: string; state: string }>(db, "SELECT url, state FROM urls WHERE kind = 'page' ORDER BY url").map(
    (row) => `${new URL(row.url).pathname} ${row.state}`,
  );

describe('robots.txt that answered 500 in an earlier run', () => {
  it('is asked again by resume and by crawl with the same root, and the site is fetched', async () => {
    let down = true;
    const table = routes({ ...SITE, '/robots.txt': () => (down ? { status: 500, body: 'down' } : ROBOTS_UP) });
    const site = await servers.serve(table);
    const db = tmp.path('500.sqlite');
    const first = await runCli(['crawl', site.url, '--db', db, '-q', '--max-tries', '1']);
    // Nothing of the site could be fetched: the run says so and exits 1.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('no root could be fetched');
    expect(site.hitCount('/robots.txt')).toBe(1);
    expect(site.hitCount('/')).toBe(0);
    expect(states(db)).toEqual(['/ skipped']);

    down = false;
    const again = tmp.path('500-again.sqlite');
    copyFileSync(db, again);
    const resumed = await runCli(['resume', db, '-q', '--max-tries', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(2);
    expect(site.hitCount('/')).toBe(1);
    expect(site.hitCount('/a')).toBe(1);
    expect(site.hitCount('/private/x')).toBe(0);
    expect(states(db)).toEqual(['/ done', '/a done', '/private/x skipped']);

    const crawled = await runCli(['crawl', site.url, '--db', again, '-q', '--max-tries', '1']);
    expect(crawled.code, crawled.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(3);
    expect(site.hitCount('/')).toBe(2);
    expect(states(again)).toEqual(['/ done', '/a done', '/private/x skipped']);
  });
});

describe('robots.txt that answered 500 through a whole crawl', () => {
  it('is asked again by a re-crawl, and what the outage refused is fetched then', async () => {
    let down = true;
    const site = await servers.serve(routes({ ...SITE, '/robots.txt': () => (down ? { status: 500, body: 'down' } : ROBOTS_UP) }));
    const db = tmp.path('500-recrawl.sqlite');
    const first = await runCli(['crawl', site.url, '--db', db, '-q', '--max-tries', '1']);
    expect(first.code, first.stderr).toBe(1);
    expect(states(db)).toEqual(['/ skipped']);

    // The re-crawl queues the failed robots.txt again: none is failed when the run starts, yet the root it refused gets its chance.
    down = false;
    const recrawled = await runCli(['recrawl', db, '-q', '--max-tries', '1']);
    expect(recrawled.code, recrawled.stderr).toBe(0);
    expect(site.hitCount('/robots.txt')).toBe(2);
    expect(site.hitCount('/')).toBe(1);
    expect(site.hitCount('/private/x')).toBe(0);
    expect(states(db)).toEqual(['/ done', '/a done', '/private/x skipped']);
  });
});

describe('a server that was down (closed port) in an earlier run', () => {
  it('is crawled by resume once it is up', async () => {
    // Take a free port, then close it: connections are refused until the site comes up on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const root = `http://127.0.0.1:${port}/`;

    const db = tmp.path('down.sqlite');
    const first = await runCli(['crawl', root, '--db', db, '-q', '--max-tries', '1']);
    // Nothing of the site could be fetched: the run says so and exits 1.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('no root could be fetched');
    expect(states(db)).toEqual(['/ skipped']);

    const hits: string[] = [];
    const table = routes({ ...SITE, '/robots.txt': ROBOTS_UP });
    const site: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      void table(req, res, req.url ?? '/');
    });
    await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
    try {
      const resumed = await runCli(['resume', db, '-q', '--max-tries', '1']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(hits.sort()).toEqual(['/', '/a', '/robots.txt']);
      expect(states(db)).toEqual(['/ done', '/a done', '/private/x skipped']);
    } finally {
      site.closeAllConnections();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });
});
