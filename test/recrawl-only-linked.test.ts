import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { copyArchive } from './support/copy-archive.js';
import { linksPage, startServer, type TestServer } from './support/test-server.js';

// The index stops linking /dropped in the second version. /same answers 304 to the re-crawl: its
// stored links (to /behind) stand, and what they lead to is visited again all the same.

function answer(path: string, version: number): Served | undefined {
  if (path === '/') return { body: linksPage(version === 1 ? ['/same', '/dropped'] : ['/same']) };
  if (path === '/same') return { body: linksPage(['/behind']), etag: '"same"' };
  if (path === '/behind' || path === '/dropped') return { body: linksPage([]) };
  return undefined;
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const first = tmp.path('first.sqlite');

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', first, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  site.version = 2;
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const capturesOf = (db: string) =>
  Object.fromEntries(
    readArchive<{ url: string; crawls: string }>(
      db,
      'SELECT url, group_concat(crawl) AS crawls FROM (SELECT url, crawl FROM captures ORDER BY url, fetched_at) GROUP BY url',
    ).map((row) => [new URL(row.url).pathname, row.crawls]),
  );

it('--only-linked visits again only what is still linked, through pages confirmed by a 304 too', async () => {
  const db = tmp.path('only-linked.sqlite');
  copyArchive(first, db);
  const hits = new Map(server.hits);
  const recrawled = await execCli(['recrawl', db, '--only-linked']);
  expect(recrawled.code, recrawled.stderr).toBe(0);

  expect(server.hitCount('/dropped')).toBe(hits.get('/dropped'));
  expect(server.hitCount('/behind')).toBe(hits.get('/behind')! + 1);
  expect(capturesOf(db)).toEqual({ '/': '1,2', '/robots.txt': '1,2', '/same': '1,2', '/behind': '1,2', '/dropped': '1' });
  const changes = readArchive<{ url: string; change: string }>(db, 'SELECT url, change FROM changes WHERE url LIKE ?', '%/dropped');
  expect(changes).toEqual([{ url: `${server.url}dropped`, change: 'gone' }]);
  // It stays as the first crawl left it; a later crawl that finds it linked again visits it.
  expect(readArchive(db, "SELECT state, crawl FROM url WHERE url LIKE '%/dropped'")).toEqual([{ state: 'done', crawl: 1 }]);
});

it('without --only-linked every URL of the archive is visited again', async () => {
  const db = tmp.path('all.sqlite');
  copyArchive(first, db);
  const hits = new Map(server.hits);
  const recrawled = await execCli(['recrawl', db]);
  expect(recrawled.code, recrawled.stderr).toBe(0);

  expect(server.hitCount('/dropped')).toBe(hits.get('/dropped')! + 1);
  expect(capturesOf(db)).toEqual({ '/': '1,2', '/robots.txt': '1,2', '/same': '1,2', '/behind': '1,2', '/dropped': '1,2' });
});
