import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { spawnCli } from '../support/cli.js';
import { control, liveRow, startControlSite, urlCount, type ControlSite } from '../support/control-site.js';
import { killAll } from '../support/process-tree.js';
import { waitFor, within } from '../support/wait.js';

// Under --min-free-disk, a crawl pauses itself instead of failing on a full disk, and says so; a lower
// limit set from another process lets it go on. The limit is set above any disk's free space.

const ABOVE_ANY_DISK = String(2 ** 50);
let site: ControlSite;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  site = await startControlSite({ pages: 8, delayMs: 20 });
});
afterEach(() => killAll(children));
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('pauses a crawl whose disk has less free space than --min-free-disk, and goes on when the limit is lowered', async () => {
  const db = tmp.path('disk.sqlite');
  const crawl = spawnCli(['crawl', site.url, '--db', db, '--ignore-robots', '--min-free-disk', ABOVE_ANY_DISK]);
  children.push(crawl);
  await waitFor(
    'the crawl to say it paused',
    () => /paused: .* free on the archive's disk, under --min-free-disk 1024.0 TiB/.test(crawl.output().stderr),
    20_000,
    () => crawl.output().stderr,
  );
  await waitFor('the live row to say why', () => liveRow(db)?.state === 'paused' && liveRow(db)?.paused_by === 'disk');
  const requested = site.log.length;
  expect(requested).toBeLessThanOrEqual(1);
  expect(await control(db, 'status')).toMatchObject({ stdout: expect.stringMatching(/: paused \(by disk\)/) });
  expect(site.log.length).toBe(requested);

  expect(await control(db, 'set', '--min-free-disk', '0')).toMatchObject({ code: 0, stdout: 'set min-free-disk 0\n' });
  const end = await within(crawl.exited, 30_000, () => `the crawl (${crawl.output().stderr})`);
  expect(end.code).toBe(0);
  expect(end.stderr).toContain('resumed');
  expect(urlCount(db, 'done')).toBe(9);
});

it('goes on when resumed from another process, though the disk is still under the limit', async () => {
  const db = tmp.path('disk-resume.sqlite');
  const crawl = spawnCli(['crawl', site.url, '--db', db, '--ignore-robots', '--min-free-disk', ABOVE_ANY_DISK]);
  children.push(crawl);
  await waitFor(
    'the crawl to pause for want of disk',
    () => liveRow(db)?.paused_by === 'disk',
    20_000,
    () => crawl.output().stderr,
  );
  expect(await control(db, 'resume')).toMatchObject({ code: 0, stdout: 'running\n' });
  const end = await within(crawl.exited, 30_000, () => `the crawl (${crawl.output().stderr})`);
  expect(end.code).toBe(0);
  expect(urlCount(db, 'done')).toBe(9);
});
