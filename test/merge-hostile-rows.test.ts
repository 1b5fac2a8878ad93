import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { alteredCopy } from './support/altered-archive.js';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { startLinkedSite } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import type { TestServer } from './support/test-server.js';

// Rows a merge could not write, or would drop without a word, refuse their shard before anything is
// written: a row that breaks its table's constraints (SQLite stores one when told to ignore CHECK), and a
// page whose body, run or URL the shard does not hold.
let site: TestServer;
const tmp = tempDir();
const honest = tmp.path('honest.sqlite');

beforeAll(async () => {
  site = await startLinkedSite(8);
  const crawl = await runCli(['crawl', site.url, '--db', honest, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('a URL row in a state no crawl writes is refused; an existing output keeps every byte', async () => {
  const bad = alteredCopy(honest, tmp.path('bad-state.sqlite'), (db) => {
    db.pragma('ignore_check_constraints = ON');
    db.prepare("UPDATE url SET state = 'owned' WHERE id = (SELECT max(id) FROM url)").run();
  });
  const output = tmp.path('out-state.sqlite');
  expectOneLine(
    await execCli(['merge', honest, bad, '--db', output]),
    /bad-state\.sqlite is not an archive as crawlite writes it: SQLite's check of it says: CHECK constraint failed in url/,
  );
  expect(existsSync(output)).toBe(false);
  const existing = tmp.path('existing.sqlite');
  expect((await execCli(['merge', honest, '--db', existing, '-q'])).code).toBe(0);
  const before = fileSha256(existing);
  expectOneLine(await execCli(['merge', bad, '--db', existing]), /bad-state\.sqlite is not an archive as crawlite writes it/);
  expect(fileSha256(existing)).toBe(before);
}, 30_000);

it('a page whose body the shard does not hold is refused, not dropped', async () => {
  const bad = alteredCopy(
    honest,
    tmp.path('no-body.sqlite'),
    'UPDATE response SET body_id = 999999 WHERE url_id = (SELECT min(url_id) FROM response)',
  );
  const output = tmp.path('out-body.sqlite');
  expectOneLine(
    await execCli(['merge', honest, bad, '--db', output]),
    /no-body\.sqlite is not an archive as crawlite writes it: response row \d+ refers to a body row it does not hold/,
  );
  expect(existsSync(output)).toBe(false);
}, 30_000);
