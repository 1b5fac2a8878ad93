import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { execCli, spawnCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import type { TestServer } from '../support/test-server.js';
import { childPids } from '../support/process-tree.js';
import { readFileSync } from 'node:fs';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('qa/qa-interrupt');

// Ctrl-C stops qa after the pages being replayed: exit 130, one line saying how far it got, the scores
// stored so far kept, the archive intact, and a second run checks every page. Chromium killed under it
// ends the run in one line too, without scoring the pages after as if they replayed badly.

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const PAGES = 40;
/** The index, and its pages. */
const CHECKED = PAGES + 1;

describe.skipIf(!HAS_CHROMIUM)('crawlite qa interrupted', () => {
  let site: TestServer;
  const db = tmp.path('site.sqlite');
  beforeAll(async () => {
    site = await startLinkedSite(PAGES);
    const crawl = await execCli(['crawl', site.url, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 60_000);
  afterAll(() => site?.close());

  const scored = () => readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM qa')[0]!.n;
  const waitForScores = (child: ReturnType<typeof spawnCli>, more: number) =>
    waitFor(
      'a page scored',
      () => {
        try {
          return scored() >= more;
        } catch {
          // The table comes with the migration qa applies when it opens the archive.
          return false;
        }
      },
      60_000,
      () => child.output().stderr,
    );

  it('keeps what it scored, and a second run scores every page', async () => {
    const child = spawnCli(['qa', db, '-c', '1']);
    await waitForScores(child, 1);
    child.kill('SIGINT');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).toMatch(/crawlite: qa interrupted after \d+ of 41 pages; the scores stored stay, run it again to check all\n$/);
    const kept = scored();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(CHECKED);
    expect(integrity(db)).toBe('ok');

    const again = await execCli(['qa', db, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(scored()).toBe(CHECKED);
  }, 180_000);

  it('ends in one line when Chromium is killed, storing no score for the pages it could not replay', async () => {
    const before = new Map(
      readArchive<{ url: string; checked_at: string }>(db, 'SELECT url, checked_at FROM qa').map((row) => [row.url, row.checked_at]),
    );
    const child = spawnCli(['qa', db, '-c', '1']);
    // Past the pages a first glance sees: the browser is up and replaying.
    await waitFor(
      'a page scored again',
      () =>
        readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM qa WHERE checked_at > ?', [...before.values()].sort().at(-1))[0]!.n > 0,
      60_000,
      () => child.output().stderr,
    );
    const chromium = childPids(child.pid!).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--crawlite-replay=');
      } catch {
        return false;
      }
    });
    expect(chromium).toHaveLength(1);
    process.kill(chromium[0]!, 'SIGKILL');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(1);
    expect(end.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^crawlite: Chromium \(\/usr\/bin\/chromium\) quit while replaying the archive: .*; the scores stored stay; run qa again$/,
    );
    expect(readArchive(db, 'SELECT url FROM qa WHERE error IS NOT NULL')).toEqual([]);
    expect(integrity(db)).toBe('ok');
  }, 180_000);
});
