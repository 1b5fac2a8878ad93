import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { html, routes, serverPool, text, type Route } from '../support/test-server.js';
import { abs } from '../support/urls.js';

// RFC 9309 §2.3.1.2: robots.txt redirects are followed for five hops, across hosts too;
// a redirect that cannot be followed counts as no robots.txt. Every hop is stored as kind robots.

const tmp = tempDir();
const servers = serverPool();

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

const robotsRows = (db: string) =>
  readArchive<{ url: string; state: string; status: number | null }>(
    db,
    "SELECT u.url, u.state, r.status FROM url u LEFT JOIN response r ON r.url_id = u.id WHERE u.kind = 'robots' ORDER BY u.url",
  );

const moved = (location: string): Route => ({ status: 301, headers: { location } });
const site = (extra: Record<string, Route>) =>
  routes({
    '/': html('<a href="/hidden">hidden</a> <a href="/shown">shown</a>'),
    '/hidden': html('hidden'),
    '/shown': html('shown'),
    ...extra,
  });

describe('robots.txt redirects', () => {
  it('follow a redirect to another host, use its rules, store both hops, and crawl nothing else there', async () => {
    const rules = await servers.serve(routes({ '/rules.txt': text('User-agent: *\nDisallow: /hidden\n'), '/': html('other host') }));
    const main = await servers.serve(site({ '/robots.txt': moved(abs(rules, '/rules.txt')) }));
    const db = tmp.path('cross.sqlite');
    const result = await runCli(['crawl', main.url, '--db', db, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(rules.hitCount('/rules.txt')).toBe(1);
    expect(main.hitCount('/hidden')).toBe(0);
    expect(main.hitCount('/shown')).toBe(1);
    // The other host's robots.txt is not asked for, nor its pages: the target is only the rules' address.
    expect(rules.totalHits()).toBe(1);
    expect(robotsRows(db)).toEqual(
      [
        { url: abs(main, '/robots.txt'), state: 'done', status: 301 },
        { url: abs(rules, '/rules.txt'), state: 'done', status: 200 },
      ].sort((a, b) => a.url.localeCompare(b.url)),
    );
  });

  it('follow five redirects, and a sixth counts as no robots.txt', async () => {
    const chain = (last: Route) =>
      site({
        '/robots.txt': moved('/r1'),
        '/r1': moved('/r2'),
        '/r2': moved('/r3'),
        '/r3': moved('/r4'),
        '/r4': moved('/r5'),
        '/r5': last,
        '/r6': text('User-agent: *\nDisallow: /\n'),
      });
    const five = await servers.serve(chain(text('User-agent: *\nDisallow: /hidden\n')));
    const fiveDb = tmp.path('five.sqlite');
    expect((await runCli(['crawl', five.url, '--db', fiveDb, '-q'])).code).toBe(0);
    expect(five.hitCount('/r5')).toBe(1);
    expect(five.hitCount('/hidden')).toBe(0);
    expect(five.hitCount('/shown')).toBe(1);

    const six = await servers.serve(chain(moved('/r6')));
    const sixDb = tmp.path('six.sqlite');
    expect((await runCli(['crawl', six.url, '--db', sixDb, '-q'])).code).toBe(0);
    expect(six.hitCount('/r5')).toBe(1);
    expect(six.hitCount('/r6')).toBe(0);
    // No robots.txt: everything is allowed.
    expect(six.hitCount('/hidden')).toBe(1);
    const rows = robotsRows(sixDb);
    expect(rows.map((row) => row.url)).toEqual(['/r1', '/r2', '/r3', '/r4', '/r5', '/robots.txt'].map((path) => abs(six, path)));
    expect(rows.every((row) => row.state === 'done' && row.status === 301)).toBe(true);
    // The redirect past the budget leads nowhere: its target is not even recorded.
    expect(readArchive(sixDb, 'SELECT url FROM url WHERE url = ?', abs(six, '/r6'))).toEqual([]);
  });

  it('to a URL that is not http(s) count as no robots.txt', async () => {
    const main = await servers.serve(site({ '/robots.txt': { status: 302, headers: { location: 'ftp://files.example/robots.txt' } } }));
    const db = tmp.path('ftp.sqlite');
    expect((await runCli(['crawl', main.url, '--db', db, '-q'])).code).toBe(0);
    expect(main.hitCount('/hidden')).toBe(1);
    expect(robotsRows(db)).toEqual([{ url: abs(main, '/robots.txt'), state: 'done', status: 302 }]);
  });

  it('are read from the archive on a later run, hop by hop, instead of fetched again', async () => {
    const main = await servers.serve(
      site({
        '/robots.txt': moved('/a'),
        '/a': moved('/b'),
        '/b': text('User-agent: *\nDisallow: /hidden\n'),
        '/second': html('<a href="/hidden">again</a>'),
      }),
    );
    const db = tmp.path('stored.sqlite');
    expect((await runCli(['crawl', main.url, '--db', db, '-q'])).code).toBe(0);
    expect((await runCli(['crawl', abs(main, '/second'), '--db', db, '-q'])).code).toBe(0);
    expect(main.hitCount('/second')).toBe(1);
    for (const path of ['/robots.txt', '/a', '/b']) expect(main.hitCount(path), path).toBe(1);
    expect(main.hitCount('/hidden')).toBe(0);
  });
});
