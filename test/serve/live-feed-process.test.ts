import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { childPids, isRunning } from '../support/process-tree.js';
import { get, startServe } from '../support/serve.js';
import { waitFor } from '../support/wait.js';

// serve reads the live page's snapshots in one process of its own, started when a page first polls: however
// many pages poll at once, one process reads, and serve's own event loop reads nothing. It ends with serve.

const tmp = tempDir();
let serve: Awaited<ReturnType<typeof startServe>>;

beforeAll(async () => {
  const site = await startLinkedSite(3);
  const db = tmp.path('feed.sqlite');
  try {
    expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  } finally {
    await site.close();
  }
  serve = await startServe(db);
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  tmp.cleanup();
});

describe('the live snapshots', () => {
  it('are read in one process, however many pages poll at once, which ends with serve', async () => {
    expect(childPids(serve.pid)).toEqual([]);
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => get(serve.ui, '/api/live')));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
      const snapshots = answers.map((answer) => JSON.parse(answer.body) as { crawl: { state: string }; recent: unknown[] });
      expect(snapshots.every((snapshot) => snapshot.crawl.state === 'ended' && snapshot.recent.length === 5)).toBe(true);
      expect(childPids(serve.pid)).toHaveLength(1);
    }
    const [feed] = childPids(serve.pid);
    await serve.stop();
    await waitFor('the snapshot process to end with serve', () => !isRunning(feed!), 10_000);
  }, 30_000);
});
