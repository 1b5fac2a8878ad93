import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileSha256, integrity, readArchive, tempDir } from './support/archive.js';
import { copyArchive } from './support/copy-archive.js';
import { execCli } from './support/cli.js';
import { linkedPage, pagePath } from './support/linked-site.js';
import { startServer, type TestServer } from './support/test-server.js';

// A site of N linked pages whose index links to every page, crawled whole into one archive and in
// shards that overlap: A skips pages 40-59, B pages 0-19, C stops after 10 pages. Merged, the
// shards read as the single crawl.
const N = 60;

let server: TestServer;
const tmp = tempDir();
const single = tmp.path('single.sqlite');
const shardA = tmp.path('a.sqlite');
const shardB = tmp.path('b.sqlite');
const shardC = tmp.path('c.sqlite');

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    if (path === '/robots.txt') return res.end('User-agent: *\nDisallow: /nowhere/\n');
    const links = Array.from({ length: N }, (_, i) => `<a href="${pagePath(i)}">${i}</a>`).join(' ');
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>index</title>${links}`);
    const match = /^\/p\/(\d+)$/.exec(path);
    if (match && Number(match[1]) < N)
      return res.writeHead(200, { 'content-type': 'text/html' }).end(linkedPage(Number(match[1]), N, pagePath));
    return res.writeHead(404).end('not found');
  });
  const crawl = async (db: string, ...flags: string[]) => {
    const run = await execCli(['crawl', server.url, '--db', db, '-c', '4', '-q', ...flags]);
    expect(run.code, run.stderr).toBe(0);
  };
  await crawl(single);
  await crawl(shardA, '--exclude', '/p/[45][0-9]$');
  await crawl(shardB, '--exclude', '/p/1?[0-9]$');
  await crawl(shardC, '--max-pages', '10');
}, 60_000);

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const path = (url: string) => new URL(url).pathname;

/** What the views say of an archive, URLs as paths (so two archives of the same site compare equal). */
function views(db: string) {
  return {
    pages: readArchive<{ url: string; status: number; sha256: string }>(db, 'SELECT url, status, sha256 FROM pages ORDER BY url').map(
      (row) => ({ ...row, url: path(row.url) }),
    ),
    links: readArchive<{ from_url: string; to_url: string; kind: string; nofollow: number }>(
      db,
      'SELECT * FROM links ORDER BY from_url, to_url',
    ).map((row) => ({
      ...row,
      from_url: path(row.from_url),
      to_url: row.to_url.replace(server.url, '/'),
    })),
    urls: readArchive<{ url: string; state: string; depth: number }>(db, 'SELECT url, state, depth FROM urls ORDER BY url').map((row) => ({
      ...row,
      url: row.url.replace(server.url, '/'),
    })),
  };
}

function counts(db: string) {
  const [row] = readArchive(
    db,
    `SELECT (SELECT count(*) FROM url) AS url, (SELECT count(*) FROM response) AS response, (SELECT count(*) FROM capture) AS capture,
            (SELECT count(*) FROM body) AS body, (SELECT count(*) FROM link) AS link, (SELECT count(*) FROM run) AS run,
            (SELECT count(*) FROM page_text) AS page_text, (SELECT group_concat(value, ' | ') FROM meta WHERE key IN ('roots', 'options')) AS definition`,
  );
  return row;
}

/** FTS5's own check of both search indexes against page_text (rank 1: compare with the content table). */
function ftsIntegrity(db: string): void {
  const handle = new Database(db);
  try {
    handle.exec("INSERT INTO page_text_fts (page_text_fts, rank) VALUES ('integrity-check', 1)");
    handle.exec("INSERT INTO page_text_trigram (page_text_trigram, rank) VALUES ('integrity-check', 1)");
  } finally {
    handle.close();
  }
}

it('three overlapping shards merge into what one crawl of the site holds: pages, links, URLs, one body per hash, searchable', async () => {
  const merged = tmp.path('merged.sqlite');
  const before = [shardA, shardB, shardC].map(fileSha256);
  const run = await execCli(['merge', shardA, shardB, shardC, '--db', merged]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`${shardB}: `);
  expect(run.stdout).toMatch(/URLs +\d+ seen: \d+ done/);
  expect([shardA, shardB, shardC].map(fileSha256)).toEqual(before);

  const want = views(single);
  const got = views(merged);
  expect(got.pages).toEqual(want.pages);
  expect(got.links).toEqual(want.links);
  expect(got.urls).toEqual(want.urls);
  expect(readArchive(merged, 'SELECT url FROM url GROUP BY url HAVING count(*) > 1')).toEqual([]);
  // Every body referenced once per hash, and none that nothing references.
  expect(counts(merged)!.body).toBe(counts(single)!.body);
  expect(
    readArchive(merged, 'SELECT count(*) AS n FROM body WHERE id NOT IN (SELECT body_id FROM response UNION SELECT body_id FROM capture)'),
  ).toEqual([{ n: 0 }]);
  expect(readArchive(merged, 'SELECT count(*) AS n FROM page_text')).toEqual(readArchive(single, 'SELECT count(*) AS n FROM page_text'));
  expect(integrity(merged)).toBe('ok');
  ftsIntegrity(merged);
  // Runs of every shard, so stats covers every worker.
  expect(counts(merged)!.run).toBe([shardA, shardB, shardC].reduce((sum, db) => sum + (counts(db)!.run as number), 0));

  // A page only A fetched, one only B fetched, one all fetched.
  for (const [words, page] of [
    ['"page 5"', '/p/5'],
    ['"page 45"', '/p/45'],
    ['"page 30"', '/p/30'],
  ] as const) {
    const search = await execCli(['search', merged, words, '-f', 'json']);
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { url: string }[]).map((row) => path(row.url))).toContain(page);
  }
}, 30_000);

it('a URL captured in two shards: the later capture is the page, the earlier one a capture, whichever shard is merged first', async () => {
  const fetched = (db: string, url: string) =>
    readArchive<{ fetched_at: string }>(db, 'SELECT fetched_at FROM pages WHERE url = ?', url)[0]!.fetched_at;
  const url = `${server.url}p/30`;
  const early = fetched(shardA, url);
  const late = fetched(shardB, url);
  expect(early < late).toBe(true);
  for (const order of [
    [shardA, shardB],
    [shardB, shardA],
  ]) {
    const merged = tmp.path(`order-${order.map((p) => p.slice(-8, -7)).join('')}.sqlite`);
    const run = await execCli(['merge', ...order, '--db', merged, '-q']);
    expect(run.code, run.stderr).toBe(0);
    expect(fetched(merged, url)).toBe(late);
    expect(readArchive(merged, 'SELECT fetched_at, latest FROM captures WHERE url = ? ORDER BY fetched_at', url)).toEqual([
      { fetched_at: early, latest: 0 },
      { fetched_at: late, latest: 1 },
    ]);
    // A page only one shard fetched has that one capture.
    expect(readArchive(merged, 'SELECT count(*) AS n FROM captures WHERE url = ?', `${server.url}p/45`)).toEqual([{ n: 1 }]);
    expect(integrity(merged)).toBe('ok');
    ftsIntegrity(merged);
  }
  const ab = tmp.path('order-ab.sqlite');
  const ba = tmp.path('order-ba.sqlite');
  expect(views(ba)).toEqual(views(ab));
  // The same rows either way; the stored options are the first shard's.
  expect({ ...counts(ba), definition: '' }).toEqual({ ...counts(ab), definition: '' });
}, 30_000);

it('merging again, or a copy of a shard already merged, changes nothing', async () => {
  const merged = tmp.path('again.sqlite');
  expect((await execCli(['merge', shardA, shardB, '--db', merged, '-q'])).code).toBe(0);
  const once = counts(merged);
  const again = await execCli(['merge', shardA, shardB, '--db', merged]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('already merged, skipped');
  expect(counts(merged)).toEqual(once);
  const copy = tmp.path('copy-of-a.sqlite');
  copyArchive(shardA, copy);
  const copied = await execCli(['merge', copy, '--db', merged, '-q']);
  expect(copied.code, copied.stderr).toBe(0);
  expect(counts(merged)).toEqual(once);
  expect(integrity(merged)).toBe('ok');
  ftsIntegrity(merged);
}, 30_000);

it('a shard left in WAL mode (a killed crawl) is read without a byte of it or its -wal changing', async () => {
  copyArchive(shardC, tmp.path('c-wal.sqlite'));
  const source = new Database(tmp.path('c-wal.sqlite'));
  source.pragma('journal_mode = WAL');
  source.pragma('wal_autocheckpoint = 0');
  source.prepare("UPDATE url SET error = 'left in the WAL' WHERE url = ?").run(`${server.url}p/3`);
  // Copied while the writer holds it: the copy has a -wal, as a crawl killed with SIGKILL leaves.
  const shard = tmp.path('killed-crawl.sqlite');
  copyArchive(tmp.path('c-wal.sqlite'), shard);
  source.close();
  expect(existsSync(`${shard}-wal`)).toBe(true);
  const before = [fileSha256(shard), fileSha256(`${shard}-wal`)];
  const merged = tmp.path('from-wal.sqlite');
  const run = await execCli(['merge', shard, '--db', merged, '-q']);
  expect(run.code, run.stderr).toBe(0);
  expect([fileSha256(shard), fileSha256(`${shard}-wal`)]).toEqual(before);
  expect(readArchive(merged, 'SELECT error FROM urls WHERE url = ?', `${server.url}p/3`)).toEqual([{ error: 'left in the WAL' }]);
  expect(views(merged).pages).toEqual(views(shardC).pages);
}, 30_000);
