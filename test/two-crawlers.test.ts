import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli, spawnCli, type CliRun } from './support/cli.js';
import { startGatedSite } from './support/gated-site.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { expectOneLine } from './support/one-line-error.js';
import { sleep, within } from './support/wait.js';

// The crawlers here are real processes of the built CLI (dist/bundle/crawlite.js): build with `npm run build` first.

const PAGES = 60;
const PAGE_DELAY_MS = 200;
/** Pages from here on wait for the test to open the gate, so the first crawl is surely still running. */
const GATED_FROM = 20;
/** The gate opens by itself after this long, so a failing test never leaves the crawl hanging. */
const GATE_LIMIT_MS = 120_000;

/** Reads through a read-write connection closed at once (it leaves no -wal or -shm behind). */
function withDb<T>(path: string, use: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Polls `done` every 50 ms, at most `limitMs`. */
async function waitFor(what: string, done: () => boolean, limitMs: number): Promise<void> {
  const tries = Math.ceil(limitMs / 50);
  for (let i = 0; i < tries; i += 1) {
    if (done()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
}

/** Runs the built CLI to its end; a run that outlasts `limitMs` is killed and fails the test. */
function execWithin(argv: string[], limitMs = 30_000): Promise<CliRun> {
  const child = spawnCli(argv);
  return within(child.exited, limitMs, `crawlite ${argv.join(' ')}`, () => child.kill('SIGKILL'));
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => {
  tmp?.cleanup();
});

describe('two crawlers on one archive', () => {
  let server: TestServer;
  let openGate: () => void = () => {};
  let first: ReturnType<typeof spawnCli> | undefined;

  beforeAll(async () => {
    const site = await startGatedSite({
      pages: PAGES,
      gatedFrom: GATED_FROM,
      delayMs: PAGE_DELAY_MS,
      gateLimitMs: GATE_LIMIT_MS,
      linkHome: true,
    });
    ({ server, openGate } = site);
  });

  afterAll(async () => {
    openGate();
    if (first && first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
    await server?.close();
  });

  const db = () => tmp.path('busy.sqlite');
  const running = () => first !== undefined && first.exitCode === null && first.signalCode === null;

  it('starts a first crawl that takes the archive and fetches', async () => {
    first = spawnCli(['crawl', server.url, '--db', db(), '-c', '2', '-q', '--ignore-robots']);
    await waitFor('the first crawl to fetch pages', () => server.totalHits() >= 3 || !running(), 15_000);
    expect(running(), `first crawl ended early: ${JSON.stringify(first.output())}`).toBe(true);
  });

  for (const name of ['crawl', 'resume']) {
    it(`refuses a second ${name} at once, in one line saying the archive is busy`, async () => {
      expect(running(), 'the first crawl should be running').toBe(true);
      const argv = name === 'crawl' ? ['crawl', server.url, '--db', db()] : ['resume', db()];
      const result = await execWithin(argv);
      expectOneLine(result, /busy/);
      expect(result.stderr).toContain(`pid ${first!.pid} on ${hostname()}`);
      expect(result.stdout).toBe('');
      // Refused without waiting for the first crawl: it is still held at the gate.
      expect(running(), 'the first crawl should still be running').toBe(true);
    });
  }

  it('answers query and stats on the same file meanwhile', async () => {
    expect(running(), 'the first crawl should be running').toBe(true);
    const query = await execWithin(['query', db(), 'select count(*) as n from pages', '-f', 'json']);
    expect(query.code, query.stderr).toBe(0);
    const [{ n }] = JSON.parse(query.stdout) as [{ n: number }];
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(PAGES + 1);
    const stats = await execWithin(['stats', db(), '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const report = JSON.parse(stats.stdout) as { urls: { total: number }; pages: number };
    expect(report.pages).toBeGreaterThan(0);
    expect(report.urls.total).toBe(PAGES + 1);
    const table = await execWithin(['stats', db()]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^URLs +\d+ seen: /m);
    expect(running(), 'the first crawl should still be running').toBe(true);
  });

  it('lets the first crawl finish with exit 0 and a sound archive', async () => {
    expect(first, 'the first crawl was started').toBeDefined();
    openGate();
    const result = await within(first!.exited, 25_000, 'the first crawl', () => first!.kill('SIGKILL'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');

    withDb(db(), (archive) => {
      expect(archive.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(archive.prepare('SELECT count(*) FROM pages WHERE status = 200').pluck().get()).toBe(PAGES + 1);
      expect(archive.prepare("SELECT count(*) FROM urls WHERE state != 'done'").pluck().get()).toBe(0);
      expect(archive.prepare("SELECT value FROM meta WHERE key = 'lock'").pluck().get()).toBeUndefined();
      expect(archive.prepare('SELECT count(*) FROM run').pluck().get()).toBe(1);
    });
    // The lock file goes with the crawl that held it: a finished archive is one file.
    expect(existsSync(`${db()}-lock`)).toBe(false);
    // The refused commands fetched nothing: every page was fetched once, by the first crawl.
    expect(server.totalHits()).toBe(PAGES + 1);
    expect([...server.hits.values()].every((hits) => hits === 1)).toBe(true);
  });
});

describe('a stale lock', () => {
  let server: TestServer;
  let db: string;

  const lockRow = (archive: string) =>
    withDb(archive, (handle) => handle.prepare("SELECT value FROM meta WHERE key = 'lock'").pluck().get() as string | undefined);
  const runs = (archive: string) => withDb(archive, (handle) => handle.prepare('SELECT count(*) FROM run').pluck().get() as number);
  const writeLock = (archive: string, lock: { pid: number; host: string; since: string }) =>
    withDb(archive, (handle) => {
      handle
        .prepare("INSERT INTO meta (key, value) VALUES ('lock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        .run(JSON.stringify(lock));
    });

  /** The pid of a process that has exited. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    const pid = child.pid!;
    const exited = new Promise<CliRun>((resolve) => child.on('exit', (code) => resolve({ code: code ?? -1, stdout: '', stderr: '' })));
    expect((await within(exited, 10_000, 'node -e ""', () => child.kill('SIGKILL'))).code).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
    return pid;
  }

  beforeAll(async () => {
    server = await startServer(
      routes({
        '/': html('<a href="/a">a</a><a href="/b">b</a>', 'home'),
        '/a': html('<p>a</p>', 'a'),
        '/b': html('<p>b</p>', 'b'),
      }),
    );
    db = tmp.path('stale.sqlite');
    const crawl = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots']);
    expect(crawl.code, crawl.stderr).toBe(0);
    expect(lockRow(db)).toBeUndefined();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('a lock row naming a live process that holds no lock (a pid reused after a reboot) does not block resume', async () => {
    // The test process is alive and on this host, but it does not hold the archive's lock.
    writeLock(db, { pid: process.pid, host: hostname(), since: '2024-01-01T00:00:00.000Z' });
    const before = runs(db);
    const result = await execWithin(['resume', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^\S+: the crawl is complete /);
    expect(runs(db)).toBe(before + 1);
    expect(lockRow(db)).toBeUndefined();
    expect(existsSync(`${db}-lock`)).toBe(false);
  });

  it('a lock left by a process that is gone is taken over: resume proceeds', async () => {
    const pid = await deadPid();
    writeLock(db, { pid, host: hostname(), since: '2024-01-01T00:00:00.000Z' });
    const before = runs(db);
    const hits = server.totalHits();
    const result = await execWithin(['resume', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^\S+: the crawl is complete /);
    expect(runs(db)).toBe(before + 1);
    // The lock it took over is released at the end.
    expect(lockRow(db)).toBeUndefined();
    withDb(db, (handle) => expect(handle.pragma('integrity_check', { simple: true })).toBe('ok'));
    // Nothing was left to fetch: everything was done by the first crawl.
    expect(server.totalHits()).toBe(hits);
  });
});

describe('two crawls started at the same instant on a new archive', () => {
  let server: TestServer;
  let openGate: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    server = await startServer(async (_req, res, path) => {
      // Every request waits for the gate, so the winner is surely still crawling while the loser starts.
      await Promise.race([gate, sleep(GATE_LIMIT_MS)]);
      const page = path === '/' ? html('<a href="/a">a</a>', 'home') : html('<p>a</p>', 'a');
      res.writeHead(200, page.headers).end(page.body);
    });
  });

  afterAll(async () => {
    openGate();
    await server?.close();
  });

  const PAIRS = 3;
  it(`one of them creates it, the other says busy (${PAIRS} pairs)`, async () => {
    for (let pair = 0; pair < PAIRS; pair += 1) {
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
      const db = tmp.path(`race-${pair}.sqlite`);
      const argv = ['crawl', server.url, '--db', db, '-q', '--ignore-robots'];
      const both = [spawnCli(argv), spawnCli(argv)];
      try {
        const first = await within(
          Promise.race(both.map((child, index) => child.exited.then((run) => ({ run, index })))),
          15_000,
          'the loser',
        );
        expectOneLine(first.run, /is busy: another crawl/);
        openGate();
        const winner = await within(both[1 - first.index]!.exited, 15_000, 'the winner');
        expect(winner.code, winner.stderr).toBe(0);
      } finally {
        openGate();
        for (const child of both) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      withDb(db, (archive) => {
        expect(archive.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(archive.prepare('SELECT count(*) FROM run').pluck().get()).toBe(1);
        expect(archive.prepare("SELECT count(*) FROM urls WHERE state = 'done'").pluck().get()).toBe(2);
      });
      expect(existsSync(`${db}-lock`)).toBe(false);
    }
  });
});

describe('a reader holding a finished archive', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(routes({ '/': html('<a href="/a">a</a>', 'home'), '/a': html('<p>a</p>', 'a') }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('makes resume wait for it, saying so once, instead of blaming a crawl', async () => {
    const db = tmp.path('read.sqlite');
    const crawl = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots']);
    expect(crawl.code, crawl.stderr).toBe(0);
    // A long query: a read transaction on the finished (rollback-journal) archive.
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    let resume: ReturnType<typeof spawnCli> | undefined;
    try {
      reader.exec('BEGIN');
      expect(reader.prepare('SELECT count(*) FROM url').pluck().get()).toBe(2);
      resume = spawnCli(['resume', db]);
      const ended = () => resume!.exitCode !== null || resume!.signalCode !== null;
      await waitFor('resume to say it waits for a reader', () => /waiting for a reader/.test(resume!.output().stderr) || ended(), 10_000);
      await sleep(1_000);
      expect(ended(), resume.output().stderr).toBe(false);
      expect(resume.output().stderr).toBe(`waiting for a reader (query, stats or another program) to close ${db}...\n`);
    } finally {
      if (reader.inTransaction) reader.exec('COMMIT');
      reader.close();
    }
    const result = await within(resume!.exited, 10_000, 'resume', () => resume!.kill('SIGKILL'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\n\S+: the crawl is complete /);
    expect(result.stderr.match(/waiting for a reader/g)).toHaveLength(1);
  });
});
