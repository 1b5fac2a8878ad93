import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outOfScope, type ScopeRules } from '../src/pipeline/scope.js';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { abs } from './support/urls.js';

const rules = (root: string, lenient = false, exclude: RegExp[] = []): ScopeRules => ({ roots: [new URL(root)], lenient, exclude });
const inside = (url: string, scope: ScopeRules) => outOfScope(url, scope) === undefined;

describe('strict scope', () => {
  const strict = rules('http://example.com/');

  it('accepts the root host and its www. twin, on either default port', () => {
    expect(inside('http://example.com/a', strict)).toBe(true);
    expect(inside('https://www.example.com/b', strict)).toBe(true);
    expect(inside('https://example.com:443/c', strict)).toBe(true);
    expect(inside('http://www.example.com/', rules('http://www.example.com/'))).toBe(true);
    expect(inside('http://example.com/', rules('http://www.example.com/'))).toBe(true);
  });

  it('refuses subdomains, other hosts and other ports of the same host', () => {
    expect(outOfScope('http://blog.example.com/', strict)).toEqual({
      code: 'out_of_scope',
      message: expect.stringContaining('blog.example.com'),
    });
    expect(inside('http://example.org/', strict)).toBe(false);
    expect(inside('http://example.com:8080/', strict)).toBe(false);
    expect(inside('http://example.com/', rules('http://example.com:8080/'))).toBe(false);
  });
});

describe('lenient scope', () => {
  it("accepts subdomains of the root's registrable domain", () => {
    expect(inside('http://blog.example.com/', rules('http://www.example.com/', true))).toBe(true);
    expect(inside('https://a.b.example.com/', rules('http://example.com/', true))).toBe(true);
  });

  it('uses the public suffix list, so a shared suffix like co.uk does not let other sites in', () => {
    const scope = rules('http://shop.example.co.uk/', true);
    expect(inside('http://blog.example.co.uk/', scope)).toBe(true);
    expect(inside('http://other.co.uk/', scope)).toBe(false);
    expect(inside('http://evil-example.co.uk/', scope)).toBe(false);
    expect(inside('http://example.github.io/', rules('http://mine.github.io/', true))).toBe(false);
  });
});

describe('exclude', () => {
  it('drops URLs matching any pattern, with the pattern as the reason', () => {
    const scope = rules('http://example.com/', false, [/\/private\//, /\?sort=/]);
    expect(outOfScope('http://example.com/private/x', scope)).toEqual({ code: 'excluded', message: 'matches --exclude \\/private\\/' });
    expect(inside('http://example.com/list?sort=asc', scope)).toBe(false);
    expect(inside('http://example.com/public/', scope)).toBe(true);
  });
});

describe('scope from a normalised origin', () => {
  it('reads host and port from the origin as parsing the URL would, IPv6 and default ports included', () => {
    const scopes = [
      rules('http://example.com/'),
      rules('http://[::1]:8080/'),
      rules('http://www.example.co.uk/', true),
      rules('http://127.0.0.1:3000/'),
    ];
    const urls = [
      'http://example.com/a',
      'https://www.example.com:443/b',
      'http://example.com:8080/',
      'http://[::1]:8080/x',
      'http://[::1]/x',
      'http://[::1]:9090/x',
      'http://shop.example.co.uk/',
      'http://other.co.uk/',
      'http://127.0.0.1:3000/p?q=1',
      'http://127.0.0.1:3001/',
    ];
    for (const scope of scopes) {
      for (const url of urls) expect(outOfScope(url, scope, 'page', new URL(url).origin), url).toEqual(outOfScope(url, scope));
    }
    expect(outOfScope('http://[::1]:9090/x', rules('http://[::1]:8080/'), 'page', 'http://[::1]:9090')?.message).toBe(
      "[::1]:9090 is not a site of the crawl's roots",
    );
    expect(inside('http://[::1]:8080/x', rules('http://[::1]:8080/'))).toBe(true);
  });
});

describe('scope in a crawl: links and redirect targets alike', () => {
  let site: TestServer;
  let elsewhere: TestServer;
  const tmp = tempDir();
  const db = tmp.path('scope.sqlite');

  beforeAll(async () => {
    elsewhere = await startServer(routes({ '/': html('another site on another port'), '/landing': html('landing') }));
    site = await startServer((req, res, path) =>
      routes({
        '/': html(`
          <a href="${elsewhere.url}">other port</a> <a href="http://localhost:${site.port}/">other host name</a>
          <a href="/private/x">private</a> <a href="/public">public</a>
          <a href="/go-away">redirect out</a> <a href="/go-private">redirect to excluded</a>`),
        '/public': html('public'),
        '/private/x': html('private'),
        '/private/y': html('private'),
        '/go-away': () => ({ status: 302, headers: { location: abs(elsewhere, '/landing') } }),
        '/go-private': { status: 301, headers: { location: '/private/y' } },
      })(req, res, path),
    );
    const result = await runCli(['crawl', site.url, '--db', db, '-q', '--exclude', '/private/']);
    expect(result.code).toBe(0);
  });

  afterAll(async () => {
    await Promise.all([site.close(), elsewhere.close()]);
    tmp.cleanup();
  });

  const urlRow = (url: string) => readArchive<{ state: string; error: string }>(db, 'SELECT state, error FROM urls WHERE url = ?', url)[0];

  it('fetches nothing outside the scope, links or redirects', () => {
    expect(elsewhere.totalHits()).toBe(0);
    expect(site.hitCount('/private/x')).toBe(0);
    expect(site.hitCount('/private/y')).toBe(0);
    expect(site.hitCount('/public')).toBe(1);
  });

  it('lists what it left out as skipped, with the reason', () => {
    expect(urlRow(elsewhere.url)).toEqual({ state: 'skipped', error: expect.stringContaining(`127.0.0.1:${elsewhere.port}`) });
    expect(urlRow(`http://localhost:${site.port}/`)).toMatchObject({ state: 'skipped' });
    expect(urlRow(abs(site, '/private/x'))).toEqual({ state: 'skipped', error: 'matches --exclude \\/private\\/' });
    expect(urlRow(abs(elsewhere, '/landing'))).toMatchObject({ state: 'skipped' });
    expect(urlRow(abs(site, '/private/y'))).toMatchObject({ state: 'skipped' });
  });

  it('still records links to skipped URLs', () => {
    const links = readArchive<{ to_url: string; kind: string }>(
      db,
      'SELECT to_url, kind FROM links WHERE to_url = ?',
      abs(elsewhere, '/landing'),
    );
    expect(links).toEqual([{ to_url: abs(elsewhere, '/landing'), kind: 'redirect' }]);
  });
});
