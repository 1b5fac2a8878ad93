import { lastValueFrom, map, mergeMap, of, timer, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { claimFrontier } from '../../src/pipeline/operators/claim-frontier.js';
import { HostScheduler, type Task } from '../../src/pipeline/politeness/host-scheduler.js';
import { RobotsBook } from '../../src/pipeline/robots/robots-book.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import type { FrontierPort } from '../../src/pipeline/ports.js';
import { sleep } from '../support/wait.js';
import { readArchive, tempDir } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const root = (url: string) => ({ url, key: url, origin: new URL(url).origin });

function setUp(name: string, urls: string[], perHost = 100) {
  const path = tmp.path(name);
  const db = openArchive(path, 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(urls.map(root));
  const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost });
  const finish = (task: Task) => {
    if (task.type === 'url') db.prepare("UPDATE url SET state = 'done' WHERE id = ?").run(task.claim.id);
  };
  return { db, path, frontier, scheduler, finish };
}

const urls = (count: number, origin = 'http://site') => Array.from({ length: count }, (_, i) => `${origin}/${i}`);

describe('claimFrontier', () => {
  it('claims only as many URLs as there are free slots, and reaches the cap', async () => {
    const { db, path, scheduler, finish } = setUp('cap.sqlite', urls(100));
    let inFlight = 0;
    let peak = 0;
    let peakFetching = 0;
    const done = await lastValueFrom(
      claimFrontier(scheduler, 4, { stopping: false }, (task) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        peakFetching = Math.max(
          peakFetching,
          readArchive<{ n: number }>(path, "SELECT count(*) AS n FROM url WHERE state = 'fetching'")[0]!.n,
        );
        return timer(5).pipe(
          map(() => {
            inFlight -= 1;
            finish(task);
            return task;
          }),
        );
      }).pipe(toArray()),
    );
    expect(done).toHaveLength(100);
    expect(peak).toBe(4);
    // In flight, plus at most a batch claimed ahead (CLAIM_AHEAD_MAX) and less than half of the one before: never the whole queue.
    expect(peakFetching).toBeGreaterThanOrEqual(4);
    expect(peakFetching).toBeLessThanOrEqual(4 + 32 + 16);
    db.close();
  });

  it('starts the next request when a task says its requests are over, and holds at most twice the cap uncommitted', async () => {
    const { db, scheduler, finish } = setUp('overlap.sqlite', urls(40));
    let requesting = 0;
    let uncommitted = 0;
    let peakRequesting = 0;
    let peakUncommitted = 0;
    // Commits are held back until 8 pages wait: were slots freed only when a page commits, 4 would be the most.
    const waiting: (() => void)[] = [];
    const done = await lastValueFrom(
      claimFrontier(scheduler, 4, { stopping: false }, (task, requestsDone) => {
        requesting += 1;
        uncommitted += 1;
        peakRequesting = Math.max(peakRequesting, requesting);
        peakUncommitted = Math.max(peakUncommitted, uncommitted);
        return timer(2).pipe(
          mergeMap(() => {
            requesting -= 1;
            requestsDone();
            requestsDone(); // twice is harmless
            return new Promise<Task>((resolve) => {
              waiting.push(() => {
                uncommitted -= 1;
                finish(task);
                resolve(task);
              });
              // Or when no request is left to join them (the end of the queue).
              if (waiting.length >= 8 || requesting === 0) {
                for (const commit of waiting.splice(0)) commit();
              }
            });
          }),
        );
      }).pipe(toArray()),
    );
    expect(done).toHaveLength(40);
    expect(peakRequesting).toBe(4);
    expect(peakUncommitted).toBe(8);
    db.close();
  });

  it('keeps going while work in flight adds to an empty queue, and completes when both are empty', async () => {
    const { db, frontier, scheduler, finish } = setUp('grow.sqlite', ['http://site/0']);
    let started = 0;
    await lastValueFrom(
      claimFrontier(scheduler, 3, { stopping: false }, (task) => {
        started += 1;
        finish(task);
        // Each of the first five URLs discovers one more, after a delay.
        const next = started < 6 ? [`http://site/child-${started}`] : [];
        return timer(5).pipe(
          map(() => {
            frontier.addRoots(next.map(root));
            scheduler.noteWork(['http://site']);
          }),
        );
      }),
      { defaultValue: undefined },
    );
    expect(started).toBe(6);
    db.close();
  });

  it('stops claiming once stopping, finishing what is in flight', async () => {
    const { db, path, scheduler } = setUp('stop.sqlite', urls(10));
    const control = { stopping: false };
    const finished = await lastValueFrom(
      claimFrontier(scheduler, 2, control, (task) =>
        timer(10).pipe(
          map(() => {
            control.stopping = true;
            return task;
          }),
        ),
      ).pipe(toArray()),
    );
    expect(finished).toHaveLength(2);
    expect(readArchive(path, "SELECT count(*) AS n FROM url WHERE state = 'queued'")).toEqual([{ n: 8 }]);
    db.close();
  });

  it('ends at once when a stop is asked for while every host is waiting out a delay', async () => {
    const path = tmp.path('wait.sqlite');
    const db = openArchive(path, 'create');
    const frontier = new SqliteFrontier(db);
    frontier.addRoots(urls(3).map(root));
    const scheduler = new HostScheduler(frontier, new RobotsBook(false), { perHost: 1, delayMs: 60_000 });
    const stop = new AbortController();
    const control = { stopping: false, stopRequested: stop.signal };
    const started = Date.now();
    setTimeout(() => {
      control.stopping = true;
      stop.abort();
    }, 50);
    const done = await lastValueFrom(claimFrontier(scheduler, 2, control, (task) => of(task)).pipe(toArray()));
    expect(done).toHaveLength(1);
    // Far short of the 60 s delay, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    db.close();
  });

  it('waits for claims under way: over a frontier that answers late, every URL is processed within the cap, and a late claim is given back at a stop', async () => {
    const { db, path, frontier } = setUp('late.sqlite', urls(40, 'http://a').concat(urls(40, 'http://b')));
    // The same frontier, answering each claim 20 ms late, as one on a server would.
    const late: FrontierPort = Object.assign(Object.create(frontier) as FrontierPort, {
      claimFrom: async (origin: string, limit: number, only?: 'requisite') => {
        await sleep(20);
        return frontier.claimFrom(origin, limit, only);
      },
    });
    const scheduler = new HostScheduler(late, new RobotsBook(false), { perHost: 4 });
    let inFlight = 0;
    let peak = 0;
    const done = await lastValueFrom(
      claimFrontier(scheduler, 6, { stopping: false }, (task) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        return timer(2).pipe(
          map(() => {
            inFlight -= 1;
            if (task.type === 'url') db.prepare("UPDATE url SET state = 'done' WHERE id = ?").run(task.claim.id);
            return task;
          }),
        );
      }).pipe(toArray()),
    );
    expect(done).toHaveLength(80);
    expect(peak).toBe(6);
    expect(readArchive(path, "SELECT count(*) AS n FROM url WHERE state != 'done'")).toEqual([{ n: 0 }]);

    // A stop while claims are under way: the stream ends only once they answered, and what they claimed goes back.
    const stopped = setUp('late-stop.sqlite', urls(20));
    const lateToo: FrontierPort = Object.assign(Object.create(stopped.frontier) as FrontierPort, {
      claimFrom: async (origin: string, limit: number, only?: 'requisite') => {
        await sleep(30);
        return stopped.frontier.claimFrom(origin, limit, only);
      },
    });
    const control = { stopping: false };
    setTimeout(() => (control.stopping = true), 10);
    const none = await lastValueFrom(
      claimFrontier(new HostScheduler(lateToo, new RobotsBook(false), { perHost: 4 }), 4, control, (task) => of(task)).pipe(toArray()),
    );
    expect(none).toEqual([]);
    expect(readArchive(stopped.path, "SELECT count(*) AS n FROM url WHERE state = 'queued'")).toEqual([{ n: 20 }]);
    db.close();
    stopped.db.close();
  });
});
