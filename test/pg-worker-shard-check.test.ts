import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { sitePaths, startLinkedSite } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';

// A worker writes only into a shard of its own crawl: never into a crawl's archive, never into another frontier's shard.

noticeIfMissing('pg-worker-shard-check');

const PAGES = 10;

/** Everything a refused worker must leave as it was: the file's bytes and what the archive says it holds. */
function snapshot(path: string) {
  const meta = readArchive<{ key: string; value: string }>(
    path,
    "SELECT key, value FROM meta WHERE key IN ('roots', 'options', 'shardOf', 'frontier') ORDER BY key",
  );
  const pages = readArchive<{ n: number }>(path, 'SELECT count(*) AS n FROM pages')[0]!.n;
  const runs = readArchive<{ n: number }>(path, 'SELECT count(*) AS n FROM run')[0]!.n;
  return { sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), meta, pages, runs };
}

function expectNoSideFiles(path: string): void {
  for (const side of ['-wal', '-shm', '-journal', '-lock']) expect(existsSync(`${path}${side}`), `${path}${side}`).toBe(false);
}

describe.skipIf(!POSTGRES_INSTALLED)('worker --db given a file that is not a shard of its crawl', () => {
  const pg = useCluster();
  const tmp = tempDir();
  let mine: TestServer;
  let theirs: TestServer;

  beforeAll(async () => {
    mine = await startLinkedSite(PAGES);
    theirs = await startLinkedSite(PAGES);
  });
  afterAll(async () => {
    await mine?.close();
    await theirs?.close();
    tmp.cleanup();
  });

  /** A frontier of its own database, queued with `site`'s root. */
  async function frontier(name: string, site: TestServer): Promise<string> {
    const url = await pg.createDatabase(name);
    const init = await execCli(['frontier', 'init', url, '--roots', site.url]);
    expect(init.code, init.stderr).toBe(0);
    return url;
  }

  it("refuses an ordinary crawl's archive in one line, leaving its bytes, and the frontier, untouched", async () => {
    const archive = tmp.path('ordinary.sqlite');
    const crawl = await execCli(['crawl', mine.url, '--db', archive, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
    const before = snapshot(archive);
    expect(before.pages).toBeGreaterThan(PAGES);

    const url = await frontier('ordinary', theirs);
    const worker = await execCli(['worker', url, '--db', archive]);
    expectOneLine(
      worker,
      /^crawlite: .*ordinary\.sqlite holds a crawl of its own, not a worker's shard: .*give the worker a new file \(--db shard-1\.sqlite\)$/,
    );

    expect(snapshot(archive)).toEqual(before);
    expectNoSideFiles(archive);
    // Nothing was claimed or fetched, and the refused worker never joined the crawl.
    expect(theirs.totalHits()).toBe(0);
    expect(await pg.query('SELECT state, count(*)::int AS n FROM url GROUP BY state', [], 'ordinary')).toEqual([{ state: 'queued', n: 1 }]);
    expect(await pg.query('SELECT count(*)::int AS n FROM worker', [], 'ordinary')).toEqual([{ n: 0 }]);
  });

  it('refuses an archive with pages but no crawl (imported, say)', async () => {
    const archive = tmp.path('pages-only.sqlite');
    copyFileSync(tmp.path('ordinary.sqlite'), archive);
    const db = new Database(archive);
    db.prepare("DELETE FROM meta WHERE key IN ('roots', 'options')").run();
    db.close();
    const before = snapshot(archive);
    const url = await frontier('pages_only', theirs);
    const worker = await execCli(['worker', url, '--db', archive]);
    expectOneLine(worker, /pages-only\.sqlite holds pages of its own, not a worker's shard/);
    expect(snapshot(archive)).toEqual(before);
    expect(theirs.totalHits()).toBe(0);
  });

  it("refuses another frontier's shard, even of a crawl with the same roots, and goes on with its own", async () => {
    const first = await frontier('first', theirs);
    const shard = tmp.path('first-shard.sqlite');
    const worker = await execCli(['worker', first, '--db', shard]);
    expect(worker.code, worker.stderr).toBe(0);
    const done = snapshot(shard);
    expect(done.pages).toBe(sitePaths(PAGES).length);
    expect(done.meta.map((row) => row.key)).toEqual(['frontier', 'options', 'roots', 'shardOf']);

    const second = await frontier('second', theirs);
    const refused = await execCli(['worker', second, '--db', shard]);
    expectOneLine(
      refused,
      /first-shard\.sqlite is a shard of another shared crawl \(a frontier made \d{4}-\d\d-\d\dT[\d:.]+Z\), not of this one, made \d{4}-\d\d-\d\dT[\d:.]+Z: give the worker a new file/,
    );
    expect(snapshot(shard)).toEqual(done);
    expectNoSideFiles(shard);
    expect(await pg.query('SELECT state, count(*)::int AS n FROM url GROUP BY state', [], 'second')).toEqual([{ state: 'queued', n: 1 }]);

    // Its own frontier's worker goes on with it: a run more, the same pages.
    const again = await execCli(['worker', first, '--db', shard]);
    expect(again.code, again.stderr).toBe(0);
    const after = snapshot(shard);
    expect(after.runs).toBe(done.runs + 1);
    expect(after.pages).toBe(done.pages);
  });

  it('tells a shard written before shards named their frontier by its roots', async () => {
    const shard = tmp.path('older-shard.sqlite');
    copyFileSync(tmp.path('first-shard.sqlite'), shard);
    const db = new Database(shard);
    db.prepare("DELETE FROM meta WHERE key = 'frontier'").run();
    db.close();
    const before = snapshot(shard);
    const other = await frontier('other_roots', mine);
    const refused = await execCli(['worker', other, '--db', shard]);
    expectOneLine(
      refused,
      new RegExp(
        `older-shard\\.sqlite is a shard of another shared crawl \\(roots ${theirs.url}\\), not of this frontier's, roots ${mine.url}: `,
      ),
    );
    expect(snapshot(shard)).toEqual(before);
  });
});
