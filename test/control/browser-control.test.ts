import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { spawnCli } from '../support/cli.js';
import { control, liveRow, startControlSite, urlCount, type ControlSite } from '../support/control-site.js';
import { killAll } from '../support/process-tree.js';
import { waitFor, within } from '../support/wait.js';

noticeIfNoBrowser('browser-control.test.ts');

// A crawl --browser is steered as any crawl: paused (what renders finishes, nothing new starts), pages
// excluded while it is paused are never rendered, and it goes on when resumed.

const PAGES = 8;

(HAS_CHROMIUM ? describe : describe.skip)('control of a crawl --browser', { timeout: 120_000 }, () => {
  let site: ControlSite;
  const tmp = tempDir();
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    site = await startControlSite({ pages: PAGES, delayMs: 200 });
  });
  afterEach(() => killAll(children));
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('pauses, excludes and resumes a browser crawl', async () => {
    const db = tmp.path('browser.sqlite');
    const crawl = spawnCli(['crawl', site.url, '--db', db, '--browser', '-c', '1', '--ignore-robots']);
    children.push(crawl);
    await waitFor(
      'the browser crawl to fetch its root',
      () => site.log.includes('/'),
      60_000,
      () => crawl.output().stderr,
    );
    expect(await control(db, 'pause')).toMatchObject({ code: 0, stdout: 'paused\n' });
    // A page's render (Chromium asks for its favicon, say) is work in flight too: it finishes, and all it fetched is stored.
    const pathsRequested = () => new Set(site.log).size;
    await waitFor(
      'the pages in flight to be stored',
      () => liveRow(db)?.state === 'paused' && site.inFlight === 0 && urlCount(db, 'done') === pathsRequested(),
      60_000,
      () => `${site.log.join(' ')}; ${urlCount(db, 'done')} done`,
    );
    const requested = site.log.length;
    const excluded = await control(db, 'exclude', '/p/[4-7]$');
    expect(excluded.stdout).toMatch(/^excluded: \d+ queued URLs? skipped\n$/);
    expect(site.log.length).toBe(requested);

    expect(await control(db, 'resume')).toMatchObject({ code: 0, stdout: 'running\n' });
    const end = await within(crawl.exited, 90_000, () => `the browser crawl (${crawl.output().stderr})`);
    expect(end.code).toBe(0);
    expect(site.log.filter((path) => /^\/p\/[4-7]$/.test(path))).toEqual([]);
    expect(urlCount(db, 'skipped', 'excluded_live')).toBe(4);
    expect(site.log.filter((path) => /^\/p\/[0-3]$/.test(path)).sort()).toEqual(['/p/0', '/p/1', '/p/2', '/p/3']);
  });
});
