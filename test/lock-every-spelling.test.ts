import { existsSync, linkSync, mkdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { spawnCli, type CliRun } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { startGatedSite } from './support/gated-site.js';
import type { TestServer } from './support/test-server.js';
import { waitFor, within } from './support/wait.js';

// One archive, one crawl, whatever path it is given by. Real processes of the built CLI: `npm run build` first.

const PAGES = 30;
/** Pages from here on wait for the test to open the gate, so the first crawl is surely still running. */
const GATED_FROM = 5;
/** The gate opens by itself after this long, so a failing test never leaves the crawl hanging. */
const GATE_LIMIT_MS = 120_000;

const tmp = tempDir();
let server: TestServer;
let openGate: () => void = () => {};
let first: ReturnType<typeof spawnCli> | undefined;

beforeAll(async () => {
  const site = await startGatedSite({ pages: PAGES, gatedFrom: GATED_FROM, delayMs: 50, gateLimitMs: GATE_LIMIT_MS });
  ({ server, openGate } = site);
});

afterAll(async () => {
  openGate();
  if (first && first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
  await server?.close();
  tmp.cleanup();
});

/** Runs the built CLI to its end in `cwd`; a run that outlasts 15 s is killed and fails the test. */
function execIn(cwd: string, argv: string[]): Promise<CliRun> {
  const child = spawnCli(argv, { cwd });
  return within(child.exited, 15_000, `crawlite ${argv.join(' ')}`, () => child.kill('SIGKILL'));
}

describe('a crawl running on an archive', () => {
  // dir/crawls/site.sqlite, crawled by that path; the others name the same file.
  const real = () => tmp.path('crawls/site.sqlite');
  const dir = () => dirname(dirname(real()));
  const running = () => first !== undefined && first.exitCode === null && first.signalCode === null;

  it('starts and fetches', async () => {
    mkdirSync(dirname(real()), { recursive: true });
    mkdirSync(`${dir()}/other`);
    symlinkSync(real(), `${dir()}/link.sqlite`);
    // A symlinked directory: `via/../crawls/site.sqlite` is the real file only when `..` is taken after the link.
    mkdirSync(`${dir()}/deep/inner`, { recursive: true });
    symlinkSync(`${dir()}/deep/inner`, `${dir()}/via`);
    // A page held at the gate must not time out and be asked again while the machine is busy.
    first = spawnCli(['crawl', server.url, '--db', real(), '-c', '2', '-q', '--ignore-robots', '--timeout', '300000']);
    await waitFor('the first crawl to fetch', () => server.totalHits() >= 3 || !running(), 15_000);
    expect(running(), `first crawl ended early: ${JSON.stringify(first.output())}`).toBe(true);
  });

  const spellings: Array<[string, string[]]> = [
    ['a symlink to it', ['crawl', 'SITE', '--db', 'link.sqlite', '--ignore-robots']],
    ['a symlink to it (resume)', ['resume', 'link.sqlite']],
    ['./other/../crawls/site.sqlite', ['resume', './other/../crawls/site.sqlite']],
    ['a path through a symlinked directory and ..', ['crawl', 'SITE', '--db', 'via/../../crawls/site.sqlite', '--ignore-robots']],
  ];
  for (const [name, argv] of spellings) {
    it(`refuses a second crawl through ${name}, in the one line a second crawl gets`, async () => {
      expect(running(), 'the first crawl should be running').toBe(true);
      const result = await execIn(
        dir(),
        argv.map((arg) => (arg === 'SITE' ? server.url : arg)),
      );
      expectOneLine(result, /is busy: another crawl \(pid \d+ on .+\) is writing to it; wait for it to finish or stop it first$/);
      expect(result.stderr).toContain(`pid ${first!.pid} on ${hostname()}`);
      expect(running(), 'the first crawl should still be running').toBe(true);
    });
  }

  it('refuses a crawl through a hard link, saying why, and unlock through it too', async () => {
    expect(running(), 'the first crawl should be running').toBe(true);
    const hard = `${dir()}/hard.sqlite`;
    linkSync(real(), hard);
    try {
      for (const argv of [
        ['resume', 'hard.sqlite'],
        ['crawl', server.url, '--db', 'hard.sqlite'],
        ['unlock', 'hard.sqlite'],
      ]) {
        const result = await execIn(dir(), argv);
        expectOneLine(
          result,
          /^crawlite: hard\.sqlite: has 2 names \(hard links\): .*; keep one name \(remove the other links\) or crawl a copy \(cp\)$/,
        );
      }
      expect(existsSync(`${hard}-lock`)).toBe(false);
      expect(existsSync(`${hard}-wal`)).toBe(false);
    } finally {
      unlinkSync(hard);
    }
    expect(running(), 'the first crawl should still be running').toBe(true);
  });

  it('lets the first crawl finish, every page fetched once', async () => {
    openGate();
    const result = await within(first!.exited, 30_000, 'the first crawl', () => first!.kill('SIGKILL'));
    expect(result.code, result.stderr).toBe(0);
    expect(server.hitCount('/')).toBe(1);
    for (let i = 0; i < PAGES; i += 1) expect(server.hitCount(`/p/${i}`), `/p/${i}`).toBe(1);
    expect(server.totalHits()).toBe(PAGES + 1);
    const db = new Database(real(), { readonly: true, fileMustExist: true });
    try {
      expect(db.prepare('SELECT count(*) FROM run').pluck().get()).toBe(1);
      expect(db.prepare("SELECT count(*) FROM urls WHERE state = 'done'").pluck().get()).toBe(PAGES + 1);
    } finally {
      db.close();
    }
    expect(existsSync(`${real()}-lock`)).toBe(false);
    expect(existsSync(`${dir()}/link.sqlite-lock`)).toBe(false);
  });
});
