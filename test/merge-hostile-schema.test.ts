import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { alteredCopy, ENDLESS_URL_VIEW, zeroblobBodyView } from './support/altered-archive.js';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli, spawnCli } from './support/cli.js';
import { startLinkedSite } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import type { TestServer } from './support/test-server.js';
import { within } from './support/wait.js';

// A shard is a file someone else may have made: its SQL must not run in the merge. Each shard below is a
// real archive edited to hold an object crawlite never makes; merged after an honest shard, it is refused
// in one line naming it and the object, and the output is not created (every check comes before any write).
let site: TestServer;
const tmp = tempDir();
const honest = tmp.path('honest.sqlite');
const output = tmp.path('out.sqlite');

beforeAll(async () => {
  site = await startLinkedSite(12);
  const crawl = await runCli(['crawl', site.url, '--db', honest, '-q']);
  expect(crawl.code, crawl.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

const cases: [string, string, RegExp][] = [
  ['a view that never ends in place of the url table', ENDLESS_URL_VIEW, /"url" is a view where crawlite has a table/],
  ['a view of 4 MB zeroblobs in place of the body table', zeroblobBodyView(4_000_000), /"body" is a view where crawlite has a table/],
  [
    'a trigger of its own',
    'CREATE TRIGGER url_spy AFTER UPDATE ON url BEGIN SELECT 1; END;',
    /a trigger "url_spy" that crawlite never makes/,
  ],
  [
    'a table with a column crawlite does not define',
    'ALTER TABLE body ADD COLUMN note TEXT',
    /table "body" is not defined as crawlite defines it/,
  ],
  ['a missing index', 'DROP INDEX capture_url', /lacks crawlite's index "capture_url"/],
];

it.each(cases)(
  'a shard with %s is refused before anything is written; the shard is not changed',
  async (name, edit, phrase) => {
    const hostile = alteredCopy(honest, tmp.path(`hostile-${name.split(' ').slice(1, 3).join('-')}.sqlite`), edit);
    const before = fileSha256(hostile);
    const child = spawnCli(['merge', honest, hostile, '--db', output]);
    // The endless view hung the merge past Ctrl-C: a hang fails here instead of the suite.
    const run = await within(child.exited, 20_000, 'the merge of a hostile shard', () => child.kill('SIGKILL'));
    expectOneLine(
      run,
      new RegExp(`${hostile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not an archive as crawlite writes it: .*(${phrase.source})`),
    );
    expect(existsSync(output)).toBe(false);
    expect(fileSha256(hostile)).toBe(before);
  },
  30_000,
);

it('the honest shard alone still merges', async () => {
  const run = await execCli(['merge', honest, '--db', tmp.path('fine.sqlite'), '-q']);
  expect(run.code, run.stderr).toBe(0);
}, 30_000);
