import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { crawl, resume } from '../../src/index.js';
import { execCli, runCli, spawnCli } from '../support/cli.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { isRunning, processTree } from '../support/process-tree.js';
import { startScriptSite } from '../support/script-site.js';
import { startServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('browser/crawl-browser-bounds');

// crawl --browser keeps a plain crawl's promises: a page that never goes quiet does not stall it, and
// after kill -9 no browser is left running and a resume completes every page with all it loaded.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)('crawl --browser, bounded', () => {
  it('captures a page that never goes quiet (a feed appending forever, a long poll never answered) at its caps, and the crawl ends', async () => {
    let polls = 0;
    const site = await startServer((_req, res, path) => {
      if (path === '/poll') {
        // Never answered: the connection stays open until the browser goes.
        polls += 1;
        return;
      }
      if (path === '/')
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/feed">feed</a><a href="/after">after</a>');
      if (path === '/after') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>after the feed</p>');
      if (path === '/feed') {
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>feed</title><div id="feed"></div><script>
          fetch('/poll');
          let n = 0;
          setInterval(() => { const p = document.createElement('p'); p.textContent = 'entry ' + (n += 1); p.style.height = '400px'; document.getElementById('feed').append(p); }, 50);
        </script>`);
      }
      res.writeHead(404).end();
    });
    try {
      const db = tmp.path('endless.sqlite');
      const result = await runCli(['crawl', site.url, '--db', db, '--browser', '-q']);
      expect(result.code, result.stderr).toBe(0);
      const states = readArchive<{ url: string; state: string }>(db, "SELECT url, state FROM url WHERE kind = 'page' ORDER BY url");
      expect(states.map((row) => [new URL(row.url).pathname, row.state])).toEqual([
        ['/', 'done'],
        ['/after', 'done'],
        ['/feed', 'done'],
      ]);
      expect(polls).toBeGreaterThan(0);
      // The feed's rendered text is what had been appended when its caps were reached.
      expect((await runCli(['search', db, 'entry'])).stdout).toContain(`${site.url}feed`);
    } finally {
      await site.close();
    }
  }, 120_000);

  it('after kill -9 leaves no browser process; resume completes, each page with everything it loaded', async () => {
    const site = await startScriptSite(12);
    try {
      const db = tmp.path('killed.sqlite');
      const child = spawnCli(['crawl', site.url, '--db', db, '--browser', '-c', '2']);
      const itemsDone = () => {
        try {
          return readArchive<{ n: number }>(
            db,
            "SELECT count(*) AS n FROM url WHERE state = 'done' AND kind = 'page' AND url LIKE '%/item/%'",
          )[0]!.n;
        } catch {
          return 0;
        }
      };
      await waitFor(
        'three item pages committed',
        () => itemsDone() >= 3,
        60_000,
        () => child.output().stderr,
      );
      const browser = processTree(child.pid!).slice(1);
      expect(browser.length, 'the crawl runs a browser').toBeGreaterThan(0);
      child.kill('SIGKILL');
      await child.exited;
      await waitFor(
        'no browser process left',
        () => browser.every((pid) => !isRunning(pid)),
        20_000,
        () => `still running: ${browser.filter(isRunning).join(' ')}`,
      );
      // What the kill left: every item page committed was committed with the JSON its script loaded, never without.
      const pagesWithout = readArchive<{ url: string }>(
        db,
        `SELECT u.url FROM url u WHERE u.state = 'done' AND u.kind = 'page' AND u.url LIKE '%/item/%'
        AND NOT EXISTS (SELECT 1 FROM pages j WHERE j.url = replace(u.url, '/item/', '/api/item/') || '.json')`,
      );
      expect(pagesWithout).toEqual([]);

      const resumed = await execCli(['resume', db, '-q']);
      expect(resumed.code, resumed.stderr).toBe(0);
      for (let n = 1; n <= 12; n++) {
        const rows = readArchive<{ url: string; state: string }>(
          db,
          'SELECT url, state FROM url WHERE url IN (?, ?)',
          `${site.url}item/${n}`,
          `${site.url}api/item/${n}.json`,
        );
        expect(
          rows.map((row) => row.state),
          `item ${n} and its JSON`,
        ).toEqual(['done', 'done']);
      }
    } finally {
      await site.close();
    }
  }, 180_000);
});

describe.skipIf(!HAS_CHROMIUM)('browser: true from code', () => {
  it('is stored with the crawl: resume() renders too', async () => {
    const site = await startScriptSite(2);
    try {
      const db = tmp.path('library.sqlite');
      // The root alone: the item pages its script links are left queued.
      const first = await crawl({ roots: [site.url], db, browser: true, maxPages: 1, concurrency: 1 }).done;
      expect(first.endedBy).toBe('limit');
      const resumed = await resume({ db, maxPages: 10 }).done;
      expect(resumed.endedBy).toBe('finished');
      const json = readArchive<{ url: string }>(db, "SELECT url FROM pages WHERE url LIKE '%/api/item/%' ORDER BY url").map(
        (row) => new URL(row.url).pathname,
      );
      expect(json).toEqual(['/api/item/1.json', '/api/item/2.json']);
    } finally {
      await site.close();
    }
  }, 120_000);
});

describe('crawl --browser without a browser', () => {
  it('says so in one line and exits 1 before the archive is made', async () => {
    const db = tmp.path('no-browser.sqlite');
    const result = await execCli(['crawl', 'http://127.0.0.1:9/', '--db', db, '--browser', '--chromium', tmp.path('no-such-chromium')]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('no Chromium at');
    expect(result.stderr).toContain('apt-get install chromium');
    expect(existsSync(db)).toBe(false);
  });

  it('refuses --browser with --no-requisites: a page renders with its requisites', async () => {
    const result = await execCli(['crawl', 'http://127.0.0.1:9/', '--db', tmp.path('conflict.sqlite'), '--browser', '--no-requisites']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--browser conflicts with --no-requisites');
  });
});
