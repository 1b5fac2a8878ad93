import { Subject, lastValueFrom, toArray } from 'rxjs';
import { afterAll, expect, it } from 'vitest';
import { CrawlControls } from '../../src/pipeline/crawl-controls.js';
import { claimFrontier } from '../../src/pipeline/operators/claim-frontier.js';
import { HostScheduler, type Task } from '../../src/pipeline/politeness/host-scheduler.js';
import { RobotsBook } from '../../src/pipeline/robots/robots-book.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { tempDir } from '../support/archive.js';
import { waitFor } from '../support/wait.js';

// The claim loop of a steered crawl: a lowered cap lets what is in flight finish and starts nothing until
// under it; a raised one starts more at once; a pause starts nothing and does not end the crawl, a resume goes on.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

it('follows the cap and the pause as they change', async () => {
  const db = openArchive(tmp.path('steered.sqlite'), 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(Array.from({ length: 40 }, (_, i) => `http://site/${i}`).map((url) => ({ url, key: url, origin: 'http://site' })));
  const controls = new CrawlControls({ concurrency: 4, minFreeDisk: 0 });
  const scheduler = new HostScheduler(frontier, new RobotsBook(false), {
    get perHost() {
      return controls.perHost;
    },
  });
  const held: Subject<Task>[] = [];
  const release = (count: number) => {
    for (const task of held.splice(0, count)) {
      task.complete();
    }
  };
  let started = 0;
  const control = {
    stopping: false,
    get paused() {
      return controls.paused !== undefined;
    },
    onChange: (listener: () => void) => controls.onChange(listener),
  };
  const ended = lastValueFrom(
    claimFrontier(
      scheduler,
      () => controls.concurrency,
      control,
      (task) => {
        started += 1;
        if (task.type === 'url') db.prepare("UPDATE url SET state = 'done' WHERE id = ?").run(task.claim.id);
        const hold = new Subject<Task>();
        held.push(hold);
        return hold;
      },
    ).pipe(toArray()),
  );

  await waitFor('the first tasks to start', () => held.length === 4);
  controls.set({ concurrency: 1 });
  release(3);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect([held.length, started]).toEqual([1, 4]);
  release(1);
  await waitFor('one task under the lowered cap', () => started === 5);
  expect(held.length).toBe(1);

  controls.set({ concurrency: 6 });
  await waitFor('more tasks at once under the raised cap', () => held.length === 6);
  expect(started).toBe(10);

  controls.pause('control');
  release(6);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect([held.length, started]).toEqual([0, 10]);

  controls.resume();
  await waitFor('tasks after the resume', () => held.length === 6);
  for (let i = 0; i < 40 && started < 40; i += 1) {
    release(1);
    await waitFor('the next task', () => held.length === 6 || started === 40);
  }
  // Paused with nothing left to claim, the crawl does not end: it waits to be resumed.
  let over = false;
  void ended.then(() => (over = true));
  controls.pause('control');
  release(held.length);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(over).toBe(false);
  controls.resume();
  expect(await ended).toHaveLength(0);
  expect(started).toBe(40);
  db.close();
});
