import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli, spawnCli } from '../support/cli.js';
import { linkedPage, pagePath } from '../support/linked-site.js';
import { expectOneLine } from '../support/one-line-error.js';
import { get, spawnServe } from '../support/serve.js';
import { html, routes, serverPool } from '../support/test-server.js';
import { exitWithin, waitFor } from '../support/wait.js';

// `crawlite serve` as a user runs it: the built command, its first line, real requests, Ctrl-C.

const tmp = tempDir();
const servers = serverPool();
let archive: string;

beforeAll(async () => {
  const site = await servers.serve(routes({ '/': html('<a href="/a">a</a>', 'home'), '/a': html('a page', 'page a') }));
  archive = tmp.path('site.sqlite');
  expect((await execCli(['crawl', site.url, '--db', archive, '-q'])).code).toBe(0);
});

afterAll(async () => {
  await servers.closeAll();
  tmp.cleanup();
});

describe('crawlite serve', () => {
  it('prints the UI URL first, then the replay origin, serves the overview, and exits 0 on SIGINT', async () => {
    const { child, url } = await spawnServe([archive, '--port', '0']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const overview = await get(url, '/');
      expect(overview.status).toBe(200);
      expect(overview.body).toContain('<h1>Overview</h1>');
      await waitFor('the second line', () => child.output().stdout.split('\n').length > 2, 5_000);
      const replayOrigin = /replay origin: (http:\/\/127\.0\.0\.1:\d+)\//.exec(child.output().stdout)?.[1];
      expect(replayOrigin).toBeDefined();
      expect(replayOrigin).not.toBe(url.replace(/\/$/, ''));
      // On loopback, where each archived site actually runs: its own host under crawlite.localhost, on the replay port.
      const port = new URL(replayOrigin!).port;
      expect(child.output().stdout).toContain(`http://<time>-<site>.crawlite.localhost:${port}/`);
      expect((await get(`${replayOrigin}/`, '/20260101000000/http://x.example/')).status).toBe(404);
    } finally {
      child.kill('SIGINT');
    }
    const ended = await exitWithin(child.exited, 5_000);
    expect(ended, 'serve did not stop on SIGINT').not.toBeNull();
    expect(ended!.code).toBe(0);
    expect(ended!.stderr).toBe('');
  });

  it('stops on SIGTERM with exit 0', async () => {
    const { child } = await spawnServe([archive, '--port', '0']);
    child.kill('SIGTERM');
    expect((await exitWithin(child.exited, 5_000))?.code).toBe(0);
  });

  it('refuses a missing archive and a file that is not one with one line, exit 1', async () => {
    expectOneLine(await execCli(['serve', tmp.path('missing.sqlite'), '--port', '0']), /missing\.sqlite: no such archive/);
    const notArchive = tmp.path('notes.txt');
    writeFileSync(notArchive, 'just some text, long enough to have a header of a hundred bytes if it were SQLite, which it is not at all.');
    expectOneLine(await execCli(['serve', notArchive, '--port', '0']), /is not a crawlite archive/);
  });

  it('refuses a bad port with one line', async () => {
    expectOneLine(await execCli(['serve', archive, '--port', '70000']), /--port must be a whole number from 0 to 65535/);
  });

  it('warns on stderr when listening beyond loopback', async () => {
    const { child, url } = await spawnServe([archive, '--port', '0', '--host', '0.0.0.0']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await waitFor('the warning', () => child.output().stderr.includes('warning'), 5_000);
      expect(child.output().stderr).toMatch(/^crawlite: warning: listening on 0\.0\.0\.0, not loopback/);
    } finally {
      child.kill('SIGINT');
    }
    expect((await exitWithin(child.exited, 5_000))?.code).toBe(0);
  });

  it('serves an archive while a crawl is writing it', async () => {
    const n = 40;
    const slow = await servers.serve(
      routes(
        Object.fromEntries([
          ['/', { ...html(`<a href="${pagePath(0)}">start</a>`, 'index') }],
          ...Array.from({ length: n }, (_, i) => [pagePath(i), { ...html(''), body: linkedPage(i, n, pagePath), delayMs: 100 }]),
        ]),
      ),
    );
    const live = tmp.path('live.sqlite');
    const crawl = spawnCli(['crawl', slow.url, '--db', live, '-c', '1', '-q']);
    try {
      await waitFor('the first pages', () => slow.totalHits() >= 4, 10_000);
      const { child, url } = await spawnServe([live, '--port', '0']);
      try {
        for (const path of ['/', '/urls', `/capture?url=${encodeURIComponent(slow.url)}`]) {
          const page = await get(url, path);
          expect(page.status, `${path}: ${page.body}`).toBe(200);
        }
        const before = slow.totalHits();
        await waitFor('the crawl to go on', () => slow.totalHits() > before + 2, 10_000);
        expect((await get(url, '/urls')).body).toContain(pagePath(0));
      } finally {
        child.kill('SIGINT');
        await exitWithin(child.exited, 5_000);
      }
    } finally {
      crawl.kill('SIGINT');
      await exitWithin(crawl.exited, 10_000);
    }
  });
});
