import { copyFileSync, existsSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from '../support/archive.js';
import { runCli, spawnCli } from '../support/cli.js';
import { madeUpWords, mulberry32 } from '../support/prng.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';
import { sleep } from '../support/wait.js';

// `crawlite compact` killed with SIGKILL at moments drawn from a seeded PRNG, across the whole of its run
// (start-up, the copy, the conversion, the vacuum, the rename): each time the archive opens intact, with
// every page and every body as before, all raw (the old file) or all compressed (the new one), never a mix.
// The next compact removes the copy a kill left and finishes.
//
// Reproduce a failure with COMPACT_KILL_SEED=<seed printed by the test>.

const PAGES = 40;
const KILLS = 12;
const SEED = process.env.COMPACT_KILL_SEED ? Number(process.env.COMPACT_KILL_SEED) >>> 0 : 0xc0_4ac7;

let server: TestServer;
const tmp = tempDir();
const original = tmp.path('original.sqlite');

beforeAll(async () => {
  const random = mulberry32(SEED);
  // Large, compressible pages: the conversion takes long enough for kills to land inside it.
  const vocabulary = madeUpWords(random, 2000, 3, 8);
  const page = () => `<p>${Array.from({ length: 40_000 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ')}</p>`;
  const table: Record<string, ReturnType<typeof html>> = {
    '/': html(Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">${i}</a>`).join('')),
  };
  for (let i = 0; i < PAGES; i++) table[`/p${i}`] = html(page());
  server = await startServer(routes(table));
  const crawled = await runCli(['crawl', server.url, '--db', original, '-q', '--no-text']);
  expect(crawled.code, crawled.stderr).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

interface Body {
  url: string;
  body: Buffer;
  size: number;
}

const bodies = (db: string) => readArchive<Body>(db, 'SELECT url, body, size FROM pages ORDER BY url');
const raw = (row: Body) => (row.body.length < row.size ? inflateSync(row.body) : row.body).toString('hex');

/** The archive is whole, holds what the original holds, and is either the old file or the new one. */
function checkWhole(db: string, expected: Body[], label: string, compressible: number): 'old' | 'new' {
  expect(integrity(db), label).toBe('ok');
  const rows = bodies(db);
  expect(
    rows.map((row) => [row.url, row.size, raw(row)]),
    label,
  ).toEqual(expected.map((row) => [row.url, row.size, raw(row)]));
  const packed = rows.filter((row) => row.body.length < row.size).length;
  expect([0, compressible], `${label}: ${packed} bodies compressed`).toContain(packed);
  return packed === 0 ? 'old' : 'new';
}

it('leaves the old file or the new one when killed at any moment, and the next run cleans up and finishes', async () => {
  console.log(`compact-kill: seed ${SEED} (set COMPACT_KILL_SEED=${SEED} to reproduce)`);
  const expected = bodies(original);
  // The pages, the index and robots.txt (a 404).
  expect(expected).toHaveLength(PAGES + 2);
  // Every page and the index shrink; robots.txt's short 404 may not.
  const compressible = PAGES + 1;
  // How long a whole run takes here, start-up included: kills are drawn across it.
  const timing = tmp.path('timing.sqlite');
  copyFileSync(original, timing);
  const started = Date.now();
  const whole = await spawnCli(['compact', timing]).exited;
  const runMs = Date.now() - started;
  expect(whole.code, whole.stderr).toBe(0);
  expect(checkWhole(timing, expected, 'a whole run', compressible)).toBe('new');

  const random = mulberry32(SEED);
  const outcomes: string[] = [];
  for (let k = 0; k < KILLS; k++) {
    const db = tmp.path(`killed-${k}.sqlite`);
    copyFileSync(original, db);
    // One moment per stratum of the run, so kills land throughout it (the last may find it exited already).
    const delayMs = Math.floor(((k + random()) / KILLS) * runMs);
    const child = spawnCli(['compact', db]);
    await sleep(delayMs);
    child.kill('SIGKILL');
    const run = await child.exited;
    const state = checkWhole(db, expected, `kill ${k + 1} at ${delayMs} ms`, compressible);
    outcomes.push(
      `${delayMs} ms: ${child.signalCode === 'SIGKILL' ? 'killed' : `exited ${run.code}`}, ${state} file${existsSync(`${db}-compacting`) ? ', copy left' : ''}`,
    );

    const again = await runCli(['compact', db]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(`${db}-compacting`)).toBe(false);
    expect(checkWhole(db, expected, `compact after kill ${k + 1}`, compressible)).toBe('new');
  }
  console.log(`compact-kill: a whole run ${runMs} ms; ${outcomes.join('; ')}`);
}, 180_000);
