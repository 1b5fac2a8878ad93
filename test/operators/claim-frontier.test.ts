import { lastValueFrom, of, timer, map, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { claimFrontier } from '../../src/pipeline/operators/claim-frontier.js';
import { openArchive } from '../../src/storage/open-archive.js';
import { SqliteFrontier } from '../../src/storage/sqlite-frontier.js';
import type { ClaimedUrl } from '../../src/storage/ports.js';
import { readArchive, tempDir } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function frontierWith(count: number, name: string) {
  const path = tmp.path(name);
  const db = openArchive(path, 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(Array.from({ length: count }, (_, i) => `http://site/${i}`));
  return { db, path, frontier };
}

describe('claimFrontier', () => {
  it('claims only as many URLs as there are free slots, and reaches the cap', async () => {
    const { db, path, frontier } = frontierWith(20, 'cap.sqlite');
    let inFlight = 0;
    let peak = 0;
    let peakFetching = 0;
    const done = await lastValueFrom(
      claimFrontier(frontier, 4, { stopping: false }, (claim: ClaimedUrl) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        peakFetching = Math.max(peakFetching, readArchive<{ n: number }>(path, "SELECT count(*) AS n FROM url WHERE state = 'fetching'")[0]!.n);
        return timer(5).pipe(
          map(() => {
            inFlight -= 1;
            db.prepare("UPDATE url SET state = 'done' WHERE id = ?").run(claim.id);
            return claim.url;
          }),
        );
      }).pipe(toArray()),
    );
    expect(done).toHaveLength(20);
    expect(peak).toBe(4);
    expect(peakFetching).toBe(4);
    db.close();
  });

  it('keeps going while work in flight adds to an empty queue, and completes when both are empty', async () => {
    const { db, frontier } = frontierWith(1, 'grow.sqlite');
    const seen: string[] = [];
    await lastValueFrom(
      claimFrontier(frontier, 3, { stopping: false }, (claim: ClaimedUrl) => {
        seen.push(claim.url);
        db.prepare("UPDATE url SET state = 'done' WHERE id = ?").run(claim.id);
        // Each of the first five URLs discovers one more, after a delay.
        const next = seen.length < 6 ? [`http://site/child-${seen.length}`] : [];
        return timer(5).pipe(map(() => frontier.addRoots(next)));
      }),
      { defaultValue: undefined },
    );
    expect(seen).toHaveLength(6);
    db.close();
  });

  it('stops claiming once stopping, finishing what is in flight', async () => {
    const { db, path, frontier } = frontierWith(10, 'stop.sqlite');
    const control = { stopping: false };
    const finished = await lastValueFrom(
      claimFrontier(frontier, 2, control, (claim: ClaimedUrl) => {
        control.stopping = true;
        return of(claim.url);
      }).pipe(toArray()),
    );
    expect(finished).toHaveLength(2);
    expect(readArchive(path, "SELECT count(*) AS n FROM url WHERE state = 'queued'")).toEqual([{ n: 8 }]);
    db.close();
  });
});
