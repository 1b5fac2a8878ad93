import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { alteredCopy } from './support/altered-archive.js';
import { fileSha256, readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { startLinkedSite } from './support/linked-site.js';
import { expectOneLine } from './support/one-line-error.js';
import type { TestServer } from './support/test-server.js';

// The merged archive keeps the shards' roots and options, and `resume` crawls with them: a shard's are
// checked as `crawl` checks its roots and flags, and must be of the same crawl as the other shards'.
let site: TestServer;
const tmp = tempDir();
const honest = tmp.path('honest.sqlite');

const setMeta = (key: string, value: unknown) => `UPDATE meta SET value = '${JSON.stringify(value)}' WHERE key = '${key}'`;
const WORKER_MARK = "INSERT INTO meta (key, value) VALUES ('shardOf', '\"postgresql\"')";

beforeAll(async () => {
  site = await startLinkedSite(6);
  const crawl = await runCli(['crawl', site.url, '--db', honest, '-q', '--max-depth', '3']);
  expect(crawl.code, crawl.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('a shard whose roots are on another site is refused; the output is not created', async () => {
  const evil = alteredCopy(honest, tmp.path('evil-roots.sqlite'), setMeta('roots', ['https://evil.example/']));
  const output = tmp.path('out-roots.sqlite');
  expectOneLine(
    await execCli(['merge', honest, evil, '--db', output]),
    /evil-roots\.sqlite: its roots are on https:\/\/evil\.example, those of .*honest\.sqlite on http:\/\/127\.0\.0\.1:\d+; refusing/,
  );
  expect(existsSync(output)).toBe(false);
  // Into an archive of the site, alone: compared with the output's roots.
  const existing = tmp.path('existing.sqlite');
  expect((await execCli(['merge', honest, '--db', existing, '-q'])).code).toBe(0);
  const before = fileSha256(existing);
  expectOneLine(
    await execCli(['merge', evil, '--db', existing]),
    /evil-roots\.sqlite: its roots are on https:\/\/evil\.example, those of .*existing\.sqlite on http/,
  );
  expect(fileSha256(existing)).toBe(before);
}, 30_000);

it('stored options a crawl would refuse (a timeout of -1 ms, an unknown option) or a root that is no http(s) URL refuse the shard', async () => {
  const output = tmp.path('out-options.sqlite');
  const cases: [string, string, RegExp][] = [
    [
      'timeout',
      "UPDATE meta SET value = json_set(value, '$.timeoutMs', -1) WHERE key = 'options'",
      /timeout\.sqlite: its stored crawl options do not validate: timeoutMs must be a whole number of ms from \d+ to \d+, got -1; a resume/,
    ],
    [
      'unknown',
      "UPDATE meta SET value = json_set(value, '$.shell', 'rm -rf /') WHERE key = 'options'",
      /unknown\.sqlite: its stored crawl options do not validate: shell is not a crawl option/,
    ],
    [
      'scheme',
      setMeta('roots', ['file:///etc/passwd']),
      /scheme\.sqlite: its stored roots are not valid: root "file:\/\/\/etc\/passwd" is not an http\(s\) URL/,
    ],
  ];
  for (const [name, edit, phrase] of cases) {
    const bad = alteredCopy(honest, tmp.path(`${name}.sqlite`), edit);
    expectOneLine(await execCli(['merge', honest, bad, '--db', output]), phrase);
    expect(existsSync(output)).toBe(false);
  }
}, 30_000);

it("worker shards must hold the same crawl's roots and options", async () => {
  const one = alteredCopy(honest, tmp.path('worker-1.sqlite'), WORKER_MARK);
  const other = alteredCopy(
    honest,
    tmp.path('worker-2.sqlite'),
    `${WORKER_MARK}; UPDATE meta SET value = json_set(value, '$.maxDepth', 50) WHERE key = 'options'`,
  );
  const path = alteredCopy(honest, tmp.path('worker-3.sqlite'), `${WORKER_MARK}; ${setMeta('roots', [`${site.url}other/`])}`);
  const output = tmp.path('out-workers.sqlite');
  expectOneLine(
    await execCli(['merge', one, other, '--db', output]),
    /worker-2\.sqlite: a worker's shard with other crawl options than .*worker-1\.sqlite/,
  );
  expectOneLine(
    await execCli(['merge', one, path, '--db', output]),
    /worker-3\.sqlite: a worker's shard with other roots \(.*\/other\/\) than .*worker-1\.sqlite/,
  );
  expect(existsSync(output)).toBe(false);
  // The same crawl's shards merge, and the archive keeps its roots and options.
  const same = alteredCopy(honest, tmp.path('worker-4.sqlite'), WORKER_MARK);
  const run = await execCli(['merge', one, same, '--db', output, '-q']);
  expect(run.code, run.stderr).toBe(0);
  expect(readArchive(output, "SELECT value FROM meta WHERE key = 'roots'")).toEqual(
    readArchive(honest, "SELECT value FROM meta WHERE key = 'roots'"),
  );
}, 30_000);
