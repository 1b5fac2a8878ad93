import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { tempDir } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const URLS = ['http://a/1', 'http://a/2', 'http://b/1', 'http://a/robots.txt'];

function archive(name: string) {
  const db = openArchive(tmp.path(name), 'create');
  const frontier = new SqliteFrontier(db);
  frontier.addRoots(
    URLS.map((url) => ({
      url,
      key: url,
      origin: new URL(url).origin,
      kind: url.endsWith('robots.txt') ? ('robots' as const) : ('page' as const),
    })),
  );
  const set = db.prepare<[string, string | null, string]>('UPDATE url SET state = ?, error_code = ? WHERE url = ?');
  set.run('skipped', 'robots_unavailable', 'http://a/1');
  set.run('skipped', 'robots_unavailable', 'http://b/1');
  set.run('skipped', 'robots', 'http://a/2');
  const states = () => db.prepare<[], { url: string; state: string }>('SELECT url, state FROM url ORDER BY url').all();
  return { db, frontier, set, states };
}

describe('requeueRobotsUnavailable', () => {
  it('queues again, per origin, only the URLs refused because robots.txt could not be had', async () => {
    const { db, frontier, states } = archive('one.sqlite');
    expect(await frontier.requeueRobotsUnavailable('http://a')).toBe(1);
    expect(states()).toEqual([
      { url: 'http://a/1', state: 'queued' },
      { url: 'http://a/2', state: 'skipped' },
      { url: 'http://a/robots.txt', state: 'queued' },
      { url: 'http://b/1', state: 'skipped' },
    ]);
    db.close();
  });

  it('over the whole archive, does so even when no robots.txt is failed any more (it answered since, or a re-crawl queued it)', async () => {
    const { db, frontier, set, states } = archive('all.sqlite');
    set.run('done', null, 'http://a/robots.txt');
    expect(await frontier.requeueRobotsUnavailable()).toBe(2);
    expect(
      states()
        .filter((row) => row.state === 'queued')
        .map((row) => row.url),
    ).toEqual(['http://a/1', 'http://b/1']);
    db.close();
  });
});
