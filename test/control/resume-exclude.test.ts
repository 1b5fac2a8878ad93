import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli, spawnCli } from '../support/cli.js';
import { startControlSite, urlCount, type ControlSite } from '../support/control-site.js';
import { killAll } from '../support/process-tree.js';
import { waitFor } from '../support/wait.js';

// An --exclude given when a crawl goes on applies to the URLs earlier runs queued, not only to those found
// from then on: they are skipped as the crawl's own exclude skips (`excluded`), and never requested.

const PAGES = 10;
const TRAP = 15;
let site: ControlSite;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  site = await startControlSite({ pages: PAGES, trap: TRAP, delayMs: 40 });
});
afterEach(() => killAll(children));
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('skips the queued URLs a new --exclude matches when a crawl is resumed', async () => {
  const db = tmp.path('resume-exclude.sqlite');
  const crawl = spawnCli(['crawl', site.url, '--db', db, '-c', '1', '--ignore-robots']);
  children.push(crawl);
  await waitFor('trap URLs to be queued', () => site.log.length > 3 && urlCount(db, 'queued') >= 2 * TRAP, 20_000);
  crawl.kill('SIGKILL');
  await crawl.exited;
  const queuedTrap = readArchive<{ n: number }>(
    db,
    "SELECT count(*) AS n FROM url WHERE state IN ('queued', 'fetching') AND url LIKE '%/doc?id=%'",
  )[0]!.n;
  expect(queuedTrap).toBeGreaterThanOrEqual(2 * TRAP);
  const requested = site.log.length;

  const resumed = await execCli(['resume', db, '--exclude', '/doc\\?id=']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(site.log.slice(requested).filter((path) => path.startsWith('/doc?'))).toEqual([]);
  expect(resumed.stderr).toContain(`${queuedTrap} queued URLs match --exclude: skipped`);
  expect(site.log.slice(requested).length).toBeGreaterThan(0);
  const skipped = readArchive<{ error_code: string; error: string; n: number }>(
    db,
    "SELECT error_code, error, count(*) AS n FROM url WHERE state = 'skipped' GROUP BY error_code, error",
  );
  expect(skipped).toEqual([
    {
      error_code: 'excluded',
      error: 'matches --exclude \\/doc\\?id=',
      n: PAGES * TRAP - site.log.filter((path) => path.startsWith('/doc?')).length,
    },
  ]);
  expect(urlCount(db, 'queued')).toBe(0);
});
