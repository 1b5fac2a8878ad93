import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp } from '../../src/serve/replay-url.js';
import { tempDir } from '../support/archive.js';
import { bytes } from '../support/bytes.js';
import { runCli } from '../support/cli.js';
import { httpGet } from '../support/http-get.js';
import { startReplayServer, TEST_UI_ORIGIN, type ReplayServer } from '../support/replay-server.js';
import { routes, startServer, type TestServer } from '../support/test-server.js';

// 你好 = C4 E3 BA C3, 中文 = D6 D0 CE C4 in GBK.
const gbkPage = bytes(
  '<!doctype html><html><head><meta charset="gbk"><title>',
  [0xc4, 0xe3, 0xba, 0xc3],
  '</title></head><body><p>',
  [0xd6, 0xd0, 0xce, 0xc4],
  '</p></body></html>',
);
const media = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const home = `<!doctype html><html><head><title>home</title><meta http-equiv="Content-Security-Policy" content="default-src *">
<link rel="stylesheet" href="/style.css"><link rel="preconnect" href="https://live.example"><style>body{background:url(/bg.png)}</style></head>
<body><a href="/gbk">gbk</a> <a href="/moved">moved</a> <a href="/refresh">refresh</a> <a href="/based/">based</a> <a href="/api/data.json">data</a> <a href="/odd">odd</a> <a href="/untyped">untyped</a> <a href="/odder">odder</a>
<img src="/a.png" srcset="/a.png 1x, /b.png 2x"><div style="background-image:url('/c.png')">c</div><video src="/media.bin"></video></body></html>`;

let site: TestServer;
let replay: ReplayServer;
const tmp = tempDir();
const db = tmp.path('replay.sqlite');
const png = { headers: { 'content-type': 'image/png' }, body: Buffer.from('png') };

/** The replay path of a site path at the capture's own timestamp. */
const replayed = (path: string) => `/${timestamp(path)}/${url(path)}`;
const url = (path: string) => new URL(path, site.url).href;
const timestamp = (path: string) => captureTimestamp(replay.archive.page(url(path))!.fetchedAt);
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => httpGet(replay.origin, path, { headers, method });

beforeAll(async () => {
  site = await startServer(
    routes({
      '/': {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-encoding': 'gzip',
          'set-cookie': 'session=secret',
          'content-security-policy': "default-src 'none'",
          'strict-transport-security': 'max-age=100',
          'x-frame-options': 'DENY',
          'x-custom': 'kept',
        },
        body: gzipSync(home),
      },
      '/style.css': { headers: { 'content-type': 'text/css' }, body: '@import "/print.css"; h1{background:url(img/h.png)}' },
      '/print.css': { headers: { 'content-type': 'text/css' }, body: 'p{}' },
      '/bg.png': png,
      '/a.png': png,
      '/b.png': png,
      '/c.png': png,
      '/img/h.png': png,
      '/media.bin': { headers: { 'content-type': 'application/octet-stream' }, body: media },
      '/gbk': { headers: { 'content-type': 'text/html' }, body: gbkPage },
      '/moved': { status: 301, headers: { location: '/target' } },
      '/target': { headers: { 'content-type': 'text/html' }, body: '<p>target</p>' },
      '/refresh': { headers: { 'content-type': 'text/html' }, body: '<meta http-equiv="refresh" content="0; url=/target">' },
      '/based/': { headers: { 'content-type': 'text/html' }, body: '<head><base href="/target-dir/"></head><a href="x">x</a>' },
      '/api/data.json': { headers: { 'content-type': 'application/json' }, body: '{"ok":true}' },
      '/untyped': { headers: {}, body: '\n <html><a href="/target">t</a></html>' },
      '/odd': { headers: { 'content-type': 'text/plain' }, body: 'odd' },
      '/odder': { headers: { 'content-type': 'text/plain' }, body: 'odder' },
    }),
  );
  const crawl = await runCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots', '--max-depth', '1']);
  expect(crawl).toMatchObject({ code: 0, stderr: '' });
  // What an imported WARC may hold and HTTP cannot send: a header value with a NUL, a status below 100.
  const file = new Database(db);
  const row = `(SELECT id FROM url WHERE url = ?)`;
  file
    .prepare(
      `UPDATE response SET headers = json_set(headers, '$."x-bad"', 'a' || char(0) || 'b', '$."x-fine"', 'yes') WHERE url_id = ${row}`,
    )
    .run(url('/odd'));
  file.prepare(`UPDATE response SET status = 42 WHERE url_id = ${row}`).run(url('/odder'));
  file.close();
  replay = await startReplayServer(db);
});

afterAll(async () => {
  await replay?.close();
  await site?.close();
  tmp.cleanup();
});

describe('a replayed HTML page', () => {
  it('is served as UTF-8 with its links, requisites, srcset, style attributes and <style> pointed at the replay origin', async () => {
    const res = await get(replayed('/'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = res.body.toString('utf8');
    const at = (path: string) => `${replay.origin}/${timestamp('/')}/${url(path)}`;
    expect(page).toContain(`<a href="${at('/gbk')}">`);
    expect(page).toContain(`<link rel="stylesheet" href="${at('/style.css')}">`);
    expect(page).toContain(`<style>body{background:url("${at('/bg.png')}")}</style>`);
    expect(page).toContain(`srcset="${at('/a.png')} 1x, ${at('/b.png')} 2x"`);
    expect(page).toContain(`style="background-image:url(&quot;${at('/c.png')}&quot;)"`);
    expect(page).toContain(`<video src="${at('/media.bin')}">`);
    expect(page).not.toContain('preconnect');
    expect(page).not.toContain('default-src *');
    expect(page).toMatch(
      new RegExp(
        `^<!doctype html><html><head><meta charset="utf-8" /><script src="${replay.origin}/_crawlite/shim.js" data-url="${url('/')}" data-timestamp="\\d{14}" data-ui="${TEST_UI_ORIGIN}"></script><title>`,
      ),
    );
  });

  it('drops the capture’s encoding and length, renames its cookies, policies and other headers x-archive-orig-*, and carries the replay policy', async () => {
    const res = await get(replayed('/'));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['x-archive-orig-content-encoding']).toBeUndefined();
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['x-custom']).toBeUndefined();
    expect(res.headers['x-archive-orig-set-cookie']).toBe('session=secret');
    expect(res.headers['x-archive-orig-content-security-policy']).toBe("default-src 'none'");
    expect(res.headers['x-archive-orig-x-custom']).toBe('kept');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`default-src 'self' ${replay.origin} data: blob: 'unsafe-inline' 'unsafe-eval'`);
    expect(csp).toContain(`connect-src 'self' ${replay.origin} data: blob:`);
    expect(csp).toContain(`form-action 'self' ${replay.origin}`);
    expect(csp).toContain(`frame-ancestors 'self' ${replay.origin} ${TEST_UI_ORIGIN}`);
    expect(csp).toContain('sandbox allow-scripts allow-forms allow-same-origin');
    expect(csp).not.toContain("'none'");
    expect(res.headers['x-dns-prefetch-control']).toBe('off');
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('resolves against <base href> and rewrites a meta refresh', async () => {
    const based = (await get(replayed('/based/'))).body.toString();
    expect(based).toContain(`<a href="${replay.origin}/${timestamp('/based/')}/${url('/target-dir/x')}">`);
    expect(based).toContain(`<base href="${replay.origin}/${timestamp('/based/')}/${url('/target-dir/')}">`);
    const refresh = (await get(replayed('/refresh'))).body.toString();
    expect(refresh).toContain(`content="0; url=${replay.origin}/${timestamp('/refresh')}/${url('/target')}"`);
  });

  it('decodes a GBK page with its stored charset and serves the same text as UTF-8', async () => {
    const res = await get(replayed('/gbk'));
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = res.body.toString('utf8');
    expect(page).toContain('<title>你好</title>');
    expect(page).toContain('<p>中文</p>');
    expect(page).not.toContain('charset="gbk"');
  });
});

describe('a capture without a Content-Type', () => {
  it('is rewritten as HTML when a browser would render it as HTML', async () => {
    const res = await get(replayed('/untyped'));
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body.toString()).toContain(`<a href="${replay.origin}/${timestamp('/untyped')}/${url('/target')}">`);
  });
});

describe('a replayed style sheet', () => {
  it('has its url() and @import pointed at the replay origin, as UTF-8', async () => {
    const res = await get(replayed('/style.css'));
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    const at = (path: string) => `${replay.origin}/${timestamp('/style.css')}/${url(path)}`;
    expect(res.body.toString()).toBe(`@import "${at('/print.css')}"; h1{background:url("${at('/img/h.png')}")}`);
    expect(res.headers['content-security-policy']).toBeDefined();
  });
});

describe('id_', () => {
  it('returns the body exactly as captured (decoded from its gzip), with its content type', async () => {
    const res = await get(`/${timestamp('/')}id_/${url('/')}`);
    expect(res.body.equals(Buffer.from(home))).toBe(true);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const gbk = await get(`/${timestamp('/gbk')}id_/${url('/gbk')}`);
    expect(gbk.body.equals(gbkPage)).toBe(true);
    expect(gbk.headers['content-security-policy']).toBeDefined();
  });
});

describe('a captured redirect', () => {
  it('redirects with its status to the replay path of its target', async () => {
    const res = await get(replayed('/moved'));
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe(`${replay.origin}/${timestamp('/moved')}/${url('/target')}`);
    expect(res.headers['content-security-policy']).toBeDefined();
  });
});

describe('any timestamp', () => {
  it('finds the capture of a URL whatever the timestamp asked for, and a URL spelled differently', async () => {
    expect((await get(`/2001/${url('/target')}`)).body.toString()).toContain('<p>target</p>');
    expect((await get(`/20010101000000/${url('/style.css').replace('http://', 'http:/')}`)).status).toBe(200);
    // The archive's key folds percent-escapes of unreserved characters, as the crawl did.
    expect((await get(`/2001/${url('/t%61rget')}`)).body.toString()).toContain('<p>target</p>');
  });
});

describe('HEAD and Range', () => {
  it('answers HEAD with the headers and length of GET and no body', async () => {
    const full = await get(replayed('/'));
    const head = await get(replayed('/'), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(full.body.length));
    expect(head.headers['content-security-policy']).toBe(full.headers['content-security-policy']);
  });

  it('serves a byte range with 206 and Content-Range, on media and on rewritten pages alike', async () => {
    const res = await get(replayed('/media.bin'), { range: 'bytes=10-19' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe('bytes 10-19/256');
    expect(res.body.equals(media.subarray(10, 20))).toBe(true);
    expect(res.headers['accept-ranges']).toBe('bytes');
    const tail = await get(replayed('/media.bin'), { range: 'bytes=-6' });
    expect(tail.body.equals(media.subarray(250))).toBe(true);
    const full = await get(replayed('/'));
    const page = await get(replayed('/'), { range: 'bytes=0-14' });
    expect(page.status).toBe(206);
    expect(page.body.equals(full.body.subarray(0, 15))).toBe(true);
  });

  it('answers a range past the end with 416', async () => {
    const res = await get(replayed('/media.bin'), { range: 'bytes=256-' });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */256');
    expect(res.body.length).toBe(0);
  });
});

describe('what is not archived', () => {
  it('is a 404 page naming the live URL as text only, with a way back to the UI', async () => {
    const live = 'http://live.example/page?a=1&b=<2>';
    const res = await get(`/20260101000000/${live}`);
    expect(res.status).toBe(404);
    const page = res.body.toString();
    expect(page).toContain('<main id="not-archived">');
    expect(page).toContain('http://live.example/page?a=1&amp;b=&lt;2&gt;');
    expect(page).not.toContain('href="http://live.example');
    expect(page).not.toContain('src=');
    expect(page).toContain(`href="${TEST_UI_ORIGIN}/"`);
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  it('answers garbage, traversal and other schemes with a 404 page and no stack', async () => {
    for (const path of [
      '/',
      '/../../etc/passwd',
      '/20260101/file:///etc/passwd',
      '/x/http://a.example/',
      '/2026/%00',
      '/%',
      '/2026/http://[::1',
      '//',
      '/favicon.ico',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      const body = res.body.toString();
      expect(body, path).toMatch(/<main id="not-(found|archived)">/);
      expect(body, path).not.toMatch(/\bat .*\.(ts|js):\d+/);
      expect(res.headers['content-security-policy']).toBeDefined();
    }
  });

  it('answers methods other than GET, HEAD and POST with 405', async () => {
    const res = await get(replayed('/'), {}, 'PUT');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.body.toString()).toContain('<main id="method-not-allowed">');
  });
});

describe('an absolute path that escaped rewriting', () => {
  it('is redirected to the replay path of that path on the site of the Referer’s capture', async () => {
    const referer = `${replay.origin}${replayed('/')}`;
    const res = await get('/api/data.json?x=1', { referer });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(`${replay.origin}/${timestamp('/')}/${url('/api/data.json?x=1')}`);
    const data = await get(`/${timestamp('/')}/${url('/api/data.json')}`);
    expect(data.body.toString()).toBe('{"ok":true}');
  });

  it('is a 404 without a Referer, or with one from elsewhere', async () => {
    expect((await get('/api/data.json')).status).toBe(404);
    expect((await get('/api/data.json', { referer: `http://127.0.0.1:1${replayed('/')}` })).status).toBe(404);
    expect((await get('/api/data.json', { referer: `${replay.origin}/not-a-replay-path` })).status).toBe(404);
  });
});

describe('a capture HTTP cannot carry', () => {
  it('loses the header values Node refuses, and keeps the rest', async () => {
    const res = await get(`/2026/${url('/odd')}`);
    expect(res.status).toBe(200);
    expect(res.headers['x-archive-orig-x-bad']).toBeUndefined();
    expect(res.headers['x-archive-orig-x-fine']).toBe('yes');
    expect(res.body.toString()).toBe('odd');
  });

  it('is a 500 page without a stack, and the server goes on serving', async () => {
    const res = await get(`/2026/${url('/odder')}`);
    expect(res.status).toBe(500);
    expect(res.body.toString()).toContain('<main id="replay-failed">');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect((await get(`/2026/${url('/odd')}`)).status).toBe(200);
  });
});

describe('the shim', () => {
  it('is served from the replay origin as JavaScript, with the replay policy', async () => {
    const res = await get('/_crawlite/shim.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.body.toString()).toContain('XMLHttpRequest');
    expect(res.headers['content-security-policy']).toBeDefined();
  });
});
