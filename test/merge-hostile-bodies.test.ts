import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { alteredCopy } from './support/altered-archive.js';
import { fileSha256, readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { pagePath, startLinkedSite } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import type { TestServer } from './support/test-server.js';

// A merge stores a body once by its SHA-256: a shard whose body row carries the hash of an honest page with
// other data would stand in for that page in the output. Each body is hashed as the merge checks its shard,
// before anything is written: a mismatch refuses the shard in one line naming it and the row.
let site: TestServer;
const tmp = tempDir();
const honest = tmp.path('honest.sqlite');
const poisoned = tmp.path('poisoned.sqlite');
const liar = tmp.path('liar.sqlite');
let target = '';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  site = await startLinkedSite(12);
  const crawl = await runCli(['crawl', site.url, '--db', honest, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
  target = `${site.url.replace(/\/$/, '')}${pagePath(1)}`;
  const bodyOf = `(SELECT r.body_id FROM response r JOIN url u ON u.id = r.url_id WHERE u.url = '${target}')`;
  // The row keeps the honest page's hash (and SHA-1); its data is another text, its size that text's.
  alteredCopy(honest, poisoned, `UPDATE body SET data = CAST('POISONED-BODY' AS BLOB), size = 13 WHERE id = ${bodyOf}`);
  alteredCopy(honest, liar, `UPDATE body SET size = size + 1000 WHERE id = ${bodyOf}`);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('a body whose data is not what its hash says is refused, naming the shard and the row; nothing is written, whichever shard comes first', async () => {
  for (const shards of [
    [poisoned, honest],
    [honest, poisoned],
  ]) {
    const output = tmp.path(`out-${shards[0] === honest ? 'honest-first' : 'poisoned-first'}.sqlite`);
    expectOneLine(
      await execCli(['merge', ...shards, '--db', output, '-q']),
      new RegExp(
        `${escape(poisoned)}: body row \\d+ \\(${escape(target)}\\) does not hold what its hash says: its data's SHA-256 is [0-9a-f]{64}, the row says [0-9a-f]{64}; refusing`,
      ),
    );
    expect(existsSync(output)).toBe(false);
  }
}, 30_000);

it('merged into an existing archive, the poisoned shard leaves it byte for byte as it was, and the page its body', async () => {
  const output = tmp.path('existing.sqlite');
  const first = await execCli(['merge', honest, '--db', output, '-q']);
  expect(first.code, first.stderr).toBe(0);
  const before = fileSha256(output);
  expectOneLine(
    await execCli(['merge', poisoned, '--db', output, '-q']),
    /poisoned\.sqlite: body row \d+ .* does not hold what its hash says/,
  );
  expect(fileSha256(output)).toBe(before);
  const [page] = readArchive<{ body: Buffer }>(output, 'SELECT body FROM pages WHERE url = ?', target);
  expect(page!.body.toString()).toContain('<title>page 1</title>');
}, 30_000);

it('a body whose stored size is not its length is refused', async () => {
  const output = tmp.path('out-liar.sqlite');
  expectOneLine(
    await execCli(['merge', honest, liar, '--db', output, '-q']),
    new RegExp(`${escape(liar)}: body row \\d+ \\(${escape(target)}\\) says it holds \\d+ bytes but holds \\d+`),
  );
  expect(existsSync(output)).toBe(false);
}, 30_000);
