import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('redirects.sqlite');
const to = (location: string, status = 301) => ({ status, headers: { location } });

beforeAll(async () => {
  const chain = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`/long/${i}`, to(`/long/${i + 1}`, 302)]));
  server = await startServer(
    routes({
      '/': html(`
        <a href="/chain/1">chain</a> <a href="/loop/a">loop</a>
        <a href="/merge/x">x</a> <a href="/merge/y">y</a> <a href="/long/0">long</a>
        <a href="/no-location">no location</a> <a href="/see-other">303</a> <a href="/temporary">307</a>`),
      '/chain/1': to('/chain/2', 301),
      // An absolute Location pointing back at this server.
      '/chain/2': () => to(abs(server, '/chain/3'), 308),
      '/chain/3': html('end of the chain'),
      '/loop/a': to('/loop/b'),
      '/loop/b': to('/loop/a'),
      '/merge/x': to('/merge/target'),
      '/merge/y': to('../merge/./target', 302),
      '/merge/target': html('one target'),
      '/no-location': { status: 302 },
      '/see-other': to('/chain/3', 303),
      '/temporary': to('/merge/target', 307),
      ...chain,
      '/long/12': html('too far'),
    }),
  );
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const state = (path: string) =>
  readArchive<{ state: string; error: string | null }>(db, 'SELECT state, error FROM urls WHERE url = ?', abs(server, path))[0];

describe('redirects, followed by the crawler', () => {
  beforeAll(async () => {
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--max-redirects', '10']);
    expect(result.code).toBe(0);
  });

  it('follows a chain of relative and absolute Locations, storing every hop as a page', () => {
    const pages = readArchive<{ url: string; status: number; location: string | null }>(
      db,
      "SELECT url, status, location FROM pages WHERE url LIKE '%/chain/%' ORDER BY url",
    );
    expect(pages.map((page) => [new URL(page.url).pathname, page.status])).toEqual([
      ['/chain/1', 301],
      ['/chain/2', 308],
      ['/chain/3', 200],
    ]);
  });

  it('ends a redirect loop after fetching each URL once', () => {
    expect(server.hitCount('/loop/a')).toBe(1);
    expect(server.hitCount('/loop/b')).toBe(1);
    expect(state('/loop/a')?.state).toBe('done');
  });

  it('fetches a target reached by two redirect paths once', () => {
    expect(server.hitCount('/merge/target')).toBe(1);
    const links = readArchive<{ from_url: string }>(
      db,
      "SELECT from_url FROM links WHERE kind = 'redirect' AND to_url = ?",
      abs(server, '/merge/target'),
    );
    expect(links.map((link) => new URL(link.from_url).pathname).sort()).toEqual(['/merge/x', '/merge/y', '/temporary']);
  });

  it('follows 303 and 307 like the others', () => {
    expect(server.hitCount('/chain/3')).toBe(1);
    expect(state('/see-other')?.state).toBe('done');
    expect(state('/temporary')?.state).toBe('done');
  });

  it('fails the URL whose redirect would exceed --max-redirects, with a clear error', () => {
    for (let i = 0; i <= 10; i += 1) expect(server.hitCount(`/long/${i}`), `/long/${i}`).toBe(1);
    expect(server.hitCount('/long/11')).toBe(0);
    expect(state('/long/10')).toEqual({ state: 'failed', error: expect.stringContaining('--max-redirects 10') });
    // Its response is kept all the same.
    expect(readArchive(db, 'SELECT status FROM pages WHERE url = ?', abs(server, '/long/10'))).toEqual([{ status: 302 }]);
  });

  it('stores a 3xx without Location as a page with no follow-up', () => {
    expect(state('/no-location')?.state).toBe('done');
    expect(readArchive(db, 'SELECT status, location FROM pages WHERE url = ?', abs(server, '/no-location'))).toEqual([
      { status: 302, location: null },
    ]);
  });
});
