import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ArchiveLock } from '../src/storage/archive/archive-lock.js';
import { copyArchive } from './support/copy-archive.js';
import { fileSha256, tempDir, UNDO_SCHEMA_7 } from './support/archive.js';
import { runCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// Inputs are checked before anything is written: each refusal is one line, exit 1, and the output
// is neither created nor changed.
let server: TestServer;
const tmp = tempDir();
const shard = tmp.path('shard.sqlite');
const output = tmp.path('out.sqlite');

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/a">a</a>'), '/a': html('<p>a</p>') }));
  expect((await runCli(['crawl', server.url, '--db', shard, '-q', '--ignore-robots'])).code).toBe(0);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

it('a missing shard is refused', async () => {
  expectOneLine(await runCli(['merge', shard, tmp.path('missing.sqlite'), '--db', output]), /missing\.sqlite: no such archive/);
  expect(existsSync(output)).toBe(false);
});

it('a file that is not an archive is refused', async () => {
  const text = tmp.path('notes.txt');
  writeFileSync(text, 'hello, this is not SQLite at all, and it is long enough to hold a header of a hundred bytes or so.\n');
  expectOneLine(await runCli(['merge', shard, text, '--db', output]), /notes\.txt is not a crawlite archive/);
  const other = tmp.path('other.sqlite');
  const db = new Database(other);
  db.exec('CREATE TABLE t (x)');
  db.close();
  expectOneLine(
    await runCli(['merge', other, '--db', output]),
    /other\.sqlite is not a crawlite archive: a SQLite database made by another program/,
  );
  expect(existsSync(output)).toBe(false);
});

it('the output among the shards is refused, the file unchanged', async () => {
  const before = fileSha256(shard);
  expectOneLine(await runCli(['merge', shard, '--db', shard]), /shard\.sqlite is both a shard to merge and the output/);
  const copy = tmp.path('copy.sqlite');
  copyArchive(shard, copy);
  expectOneLine(await runCli(['merge', shard, `${tmp.dir}/./copy.sqlite`, '--db', copy]), /is both a shard to merge and the output/);
  expect(fileSha256(shard)).toBe(before);
});

it('a shard of an older schema is refused with how to migrate it', async () => {
  const old = tmp.path('old.sqlite');
  copyArchive(shard, old);
  const db = new Database(old);
  db.exec(UNDO_SCHEMA_7);
  db.close();
  const before = fileSha256(old);
  expectOneLine(
    await runCli(['merge', shard, old, '--db', output]),
    /old\.sqlite is an archive of schema 6 .*crawlite reindex .*old\.sqlite/,
  );
  expect(fileSha256(old)).toBe(before);
  expect(existsSync(output)).toBe(false);
});

it('a shard a running crawl holds is refused', async () => {
  const lock = ArchiveLock.tryAcquire(shard)!;
  try {
    expectOneLine(await runCli(['merge', shard, '--db', output]), /shard\.sqlite is busy: another crawl/);
  } finally {
    lock.release();
  }
  expect(existsSync(output)).toBe(false);
});

it('an output that is not an archive is refused, unchanged', async () => {
  const text = tmp.path('out.txt');
  writeFileSync(text, 'x'.repeat(200));
  const before = fileSha256(text);
  expectOneLine(await runCli(['merge', shard, '--db', text]), /out\.txt is not a crawlite archive/);
  expect(fileSha256(text)).toBe(before);
  expect(existsSync(`${text}-lock`)).toBe(false);
});
