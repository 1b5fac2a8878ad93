import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, startServer, type TestServer } from './support/test-server.js';

// A site that needs a header, cookies, or a second try; and a local HTTP proxy in front of it.
let site: TestServer;
let proxy: Server;
let proxyUrl: string;
const proxied: string[] = [];
const tmp = tempDir();
let brokenUntil = Infinity;

const page = (body: string) => html(body);
const send = (
  res: import('node:http').ServerResponse,
  route: { status?: number; headers?: Record<string, string>; body?: string | Buffer },
) => void res.writeHead(route.status ?? 200, route.headers ?? {}).end(route.body ?? '');

beforeAll(async () => {
  site = await startServer((req, res, path) => {
    const cookie = req.headers.cookie ?? '';
    switch (path) {
      case '/token/':
        return req.headers['x-token'] === 's3cret'
          ? send(res, page('<a href="/token/inner">in</a>'))
          : send(res, { status: 401, body: 'no token' });
      case '/token/inner':
        return req.headers['x-token'] === 's3cret' ? send(res, page('inner')) : send(res, { status: 401, body: 'no token' });
      case '/members/':
        return /(^|; )session=abc(;|$)/.test(cookie)
          ? send(res, page('<a href="/members/list">list</a>'))
          : send(res, { status: 403, body: 'log in' });
      case '/members/list':
        return /(^|; )session=abc(;|$)/.test(cookie) ? send(res, page('list')) : send(res, { status: 403, body: 'log in' });
      case '/login/':
        return send(res, {
          headers: { ...page('').headers, 'set-cookie': 'visit=v1; Path=/' },
          body: page('<a href="/login/after">after</a>').body,
        });
      case '/login/after':
        return /(^|; )visit=v1(;|$)/.test(cookie) ? send(res, page('welcome back')) : send(res, { status: 403, body: 'no visit cookie' });
      case '/flaky/':
        return Date.now() < brokenUntil ? send(res, { status: 500, body: 'down' }) : send(res, page('<a href="/flaky/more">more</a>'));
      case '/flaky/more':
        return send(res, page('more'));
      case '/robots.txt':
        return send(res, { status: 404 });
      default:
        return send(res, { status: 404, body: 'no' });
    }
  });
  // A forward proxy: plain http:// requests arrive in absolute form and are relayed to 127.0.0.1 only.
  proxy = createServer((req, res) => {
    const target = new URL(req.url ?? '');
    if (target.hostname !== '127.0.0.1') return void res.writeHead(502).end('this test proxy relays to 127.0.0.1 only');
    proxied.push(target.pathname);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await site.close();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  tmp.cleanup();
});

const statuses = (db: string) =>
  Object.fromEntries(
    readArchive<{ url: string; status: number }>(db, 'select url, status from pages').map((row) => [new URL(row.url).pathname, row.status]),
  );

describe('--header', () => {
  it('sends the header with every request and never stores its value in the archive', async () => {
    const db = tmp.path('header.sqlite');
    const run = await runCli([
      'crawl',
      `${site.url}token/`,
      '--db',
      db,
      '-q',
      '--header',
      'X-Token: s3cret',
      '--header',
      'Accept: text/html',
    ]);
    expect(run.code).toBe(0);
    expect(statuses(db)).toMatchObject({ '/token/': 200, '/token/inner': 200 });
    expect(readFileSync(db).includes('s3cret')).toBe(false);
  });

  it('without it the same site answers 401', async () => {
    const db = tmp.path('no-header.sqlite');
    await runCli(['crawl', `${site.url}token/`, '--db', db, '-q']);
    expect(statuses(db)).toMatchObject({ '/token/': 401 });
  });

  it('refuses a malformed header or one the crawler sets itself, in one line', async () => {
    for (const bad of ['no colon here', 'Bad Name: x', 'Host: elsewhere', 'Cookie: a=b', 'Accept-Encoding: identity']) {
      const run = await runCli(['crawl', site.url, '--db', tmp.path('bad-header.sqlite'), '--header', bad]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain('--header');
    }
  });

  it('reminds resume that headers were not stored', async () => {
    const db = tmp.path('header-resume.sqlite');
    await runCli(['crawl', `${site.url}token/`, '--db', db, '-q', '--header', 'X-Token: s3cret']);
    const resumed = await runCli(['resume', db]);
    expect(resumed.stderr).toContain("--header 'x-token: ...'");
    expect(resumed.stderr).toContain('not stored');
  });
});

describe('cookies', () => {
  it('--cookies loads a Netscape cookies.txt and sends its cookies to matching requests', async () => {
    const jar = tmp.path('cookies.txt');
    writeFileSync(
      jar,
      [
        '# Netscape HTTP Cookie File',
        '',
        '127.0.0.1\tFALSE\t/members\tFALSE\t0\tsession\tabc',
        '127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tgone',
        '',
      ].join('\n'),
    );
    const db = tmp.path('cookies.sqlite');
    const run = await runCli(['crawl', `${site.url}members/`, '--db', db, '-q', '--cookies', jar]);
    expect(run.code).toBe(0);
    expect(statuses(db)).toMatchObject({ '/members/': 200, '/members/list': 200 });
  });

  it("--cookie 'name=value' is sent to the roots' host", async () => {
    const db = tmp.path('cookie.sqlite');
    await runCli(['crawl', `${site.url}members/`, '--db', db, '-q', '--cookie', 'session=abc']);
    expect(statuses(db)).toMatchObject({ '/members/': 200, '/members/list': 200 });
  });

  it('keeps cookies the server sets for later requests of the run, as a browser does', async () => {
    const db = tmp.path('set-cookie.sqlite');
    await runCli(['crawl', `${site.url}login/`, '--db', db, '-q']);
    expect(statuses(db)).toMatchObject({ '/login/': 200, '/login/after': 200 });
  });

  it('refuses a cookies.txt that is not one, naming the line', async () => {
    const jar = tmp.path('bad-cookies.txt');
    writeFileSync(jar, '127.0.0.1 FALSE / FALSE 0 session abc\n');
    const run = await runCli(['crawl', site.url, '--db', tmp.path('bad-cookies.sqlite'), '--cookies', jar]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad-cookies\.txt line 1: .*cookies\.txt format/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('--proxy', () => {
  it('sends every request through the proxy', async () => {
    proxied.length = 0;
    const db = tmp.path('proxy.sqlite');
    const run = await runCli(['crawl', `${site.url}login/`, '--db', db, '-q', '--proxy', proxyUrl]);
    expect(run.code).toBe(0);
    expect(statuses(db)).toMatchObject({ '/login/': 200, '/login/after': 200 });
    expect(proxied).toEqual(expect.arrayContaining(['/robots.txt', '/login/', '/login/after']));
    expect(readFileSync(db).includes(proxyUrl)).toBe(false);
  });

  it('refuses a proxy that is not an http(s) or socks5 URL', async () => {
    const run = await runCli(['crawl', site.url, '--db', tmp.path('bad-proxy.sqlite'), '--proxy', 'ftp://127.0.0.1:1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--proxy must be');
  });
});

describe('crawlite retry', () => {
  it('queues failed URLs again with fresh tries and fetches them', async () => {
    const db = tmp.path('retry.sqlite');
    brokenUntil = Infinity;
    await runCli(['crawl', `${site.url}flaky/`, '--db', db, '-q', '--max-tries', '1']);
    expect(readArchive(db, "select state from urls where url like '%/flaky/'")).toEqual([{ state: 'failed' }]);
    // Its only root failed again: the run says so and exits 1.
    const resumed = await runCli(['resume', db, '-q']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('no root could be fetched');
    expect(readArchive(db, "select state from urls where url like '%/flaky/'")).toEqual([{ state: 'failed' }]);

    brokenUntil = 0;
    const retried = await runCli(['retry', db]);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toContain('1 failed URL queued again');
    expect(readArchive(db, "select state, tries from urls where url like '%/flaky/%' order by url")).toEqual([
      { state: 'done', tries: 1 },
      { state: 'done', tries: 1 },
    ]);
    expect(statuses(db)).toMatchObject({ '/flaky/': 200, '/flaky/more': 200 });
  });
});
