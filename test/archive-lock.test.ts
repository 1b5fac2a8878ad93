import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveLock } from '../src/storage/archive/archive-lock.js';
import { CrawlRecord } from '../src/storage/crawl-state/crawl-record.js';
import { connectionOf, openCrawlArchive } from '../src/storage/archive/open-crawl-archive.js';
import { tempDir, testOwner } from './support/archive.js';
import { BIN, execCli } from './support/cli.js';
import { html, startServer, type TestServer } from './support/test-server.js';
import { sleep, waitFor } from './support/wait.js';
import { expectOneLine } from './support/one-line-error.js';

// The crawl lock is the operating system's: it goes with the process, not with its pid.

const tmp = tempDir();
let made = 0;

afterAll(() => {
  tmp.cleanup();
});

/** A finished archive with a stored root (rollback journal, one file), made without the CLI. */
async function finishedArchive(): Promise<string> {
  made += 1;
  const path = tmp.path(`finished-${made}.sqlite`);
  const archive = await openCrawlArchive(path, 'create', testOwner);
  new CrawlRecord(connectionOf(archive)).save(['http://127.0.0.1:1/'], {});
  archive.close();
  expect(existsSync(`${path}-lock`)).toBe(false);
  return path;
}

const lockRow = (path: string) => {
  const db = new Database(path, { fileMustExist: true });
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'lock'").pluck().get() as string | undefined;
  } finally {
    db.close();
  }
};

describe('the lock', () => {
  it('is held once, and released with its file', () => {
    const path = tmp.path('held.sqlite');
    const first = ArchiveLock.tryAcquire(path);
    expect(first).toBeDefined();
    expect(existsSync(`${path}-lock`)).toBe(true);
    expect(ArchiveLock.tryAcquire(path)).toBeUndefined();
    first!.release();
    expect(existsSync(`${path}-lock`)).toBe(false);
    const second = ArchiveLock.tryAcquire(path);
    expect(second).toBeDefined();
    second!.release();
    // No journal or other side file is left: the lock file is never written.
    expect(existsSync(`${path}-lock-journal`)).toBe(false);
  });

  it('is one lock for every spelling of a file not created yet: a dangling symlink, a symlinked directory and ..', () => {
    const real = tmp.path('spelled/new.sqlite');
    mkdirSync(tmp.path('spelled/inner/deeper'), { recursive: true });
    symlinkSync(real, tmp.path('dangling.sqlite'));
    symlinkSync(tmp.path('spelled/inner/deeper'), tmp.path('down'));
    const held = ArchiveLock.tryAcquire(tmp.path('dangling.sqlite'));
    expect(held).toBeDefined();
    try {
      expect(existsSync(`${real}-lock`)).toBe(true);
      for (const spelling of [
        real,
        tmp.path('dangling.sqlite'),
        `${tmp.path('down')}/../../new.sqlite`,
        `${tmp.dir}/spelled/./inner/../new.sqlite`,
      ]) {
        expect(ArchiveLock.tryAcquire(spelling), spelling).toBeUndefined();
      }
    } finally {
      held!.release();
    }
    expect(existsSync(`${real}-lock`)).toBe(false);
  });

  it('is free when only its file was left behind', () => {
    const path = tmp.path('left.sqlite');
    writeFileSync(`${path}-lock`, '');
    const lock = ArchiveLock.tryAcquire(path);
    expect(lock).toBeDefined();
    lock!.release();
    expect(existsSync(`${path}-lock`)).toBe(false);
  });
});

describe.skipIf(process.platform !== 'linux')('a crawl killed with kill -9 and not reaped (a zombie)', () => {
  let server: TestServer;
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  let parent: ChildProcess | undefined;

  beforeAll(async () => {
    const links = Array.from({ length: 6 }, (_, i) => `<a href="/p/${i}">${i}</a>`).join('');
    server = await startServer(async (_req, res, path) => {
      if (path !== '/') await Promise.race([gate, sleep(20_000)]);
      const page = path === '/' ? html(links, 'home') : html(`<p>${path}</p>`, path);
      res.writeHead(200, page.headers).end(page.body);
    });
  });

  afterAll(async () => {
    openGate();
    // Killing the parent hands the zombie to init, which reaps it.
    if (parent && parent.exitCode === null) parent.kill('SIGKILL');
    await server?.close();
  });

  const state = (pid: number) => {
    try {
      // /proc/<pid>/stat: "pid (comm) S ...": the state follows the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return 'gone';
    }
  };

  it('leaves the archive free: resume starts at once', async () => {
    const db = tmp.path('zombie.sqlite');
    // sh starts the crawl in the background, prints its pid, then becomes `sleep`, which never waits for it.
    const crawl = `"${process.execPath}" "${BIN}" crawl ${server.url} --db "${db}" -q --ignore-robots -c 2 >/dev/null 2>&1 & echo $!; exec sleep 300`;
    parent = spawn('sh', ['-c', crawl], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    parent.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor('the crawl pid', () => /^\d+\n/.test(out), 30_000);
    const pid = Number(out.trim());
    try {
      await waitFor(
        'the crawl to hold the archive and fetch',
        () => server.totalHits() >= 2,
        60_000,
        () => `hits ${server.totalHits()}`,
      );
      expect(existsSync(`${db}-lock`)).toBe(true);
      expect(JSON.parse(lockRow(db)!)).toMatchObject({ pid, host: hostname() });
      process.kill(pid, 'SIGKILL');
      await waitFor(
        'the killed crawl to be a zombie',
        () => state(pid) === 'Z',
        30_000,
        () => `state ${state(pid)}`,
      );
      // A zombie still answers kill(pid, 0): a pid-based lock would call it alive.
      expect(() => process.kill(pid, 0)).not.toThrow();

      openGate();
      const started = performance.now();
      const resumed = await execCli(['resume', db, '-q']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toBe('');
      // At once, not once the zombie is gone (it is still there, below): about a second on a quiet machine.
      expect(performance.now() - started).toBeLessThan(20_000);
      expect(state(pid)).toBe('Z');
      expect(lockRow(db)).toBeUndefined();
      expect(existsSync(`${db}-lock`)).toBe(false);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already dead.
      }
    }
  }, 180_000);
});

describe('crawlite unlock', () => {
  it('refuses while a live process holds the lock, and leaves it', async () => {
    const db = await finishedArchive();
    const lock = ArchiveLock.tryAcquire(db)!;
    try {
      const result = await execCli(['unlock', db]);
      expectOneLine(result, /is busy: a running crawl holds its lock; stop that crawl first/);
      expect(existsSync(`${db}-lock`)).toBe(true);
    } finally {
      lock.release();
    }
  });

  it('clears the row and the file left by a crawl that is gone', async () => {
    const db = await finishedArchive();
    const stale = { pid: 999_999_999, host: hostname(), since: '2024-01-01T00:00:00.000Z' };
    const handle = new Database(db);
    handle.prepare("INSERT INTO meta (key, value) VALUES ('lock', ?)").run(JSON.stringify(stale));
    handle.close();
    writeFileSync(`${db}-lock`, '');
    const result = await execCli(['unlock', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`unlocked ${db}: removed the lock left by pid 999999999 on ${hostname()}, since 2024-01-01T00:00:00.000Z\n`);
    expect(lockRow(db)).toBeUndefined();
    expect(existsSync(`${db}-lock`)).toBe(false);
  });

  it('says when there is nothing to clear', async () => {
    const db = await finishedArchive();
    const result = await execCli(['unlock', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${db} is not locked; nothing to do\n`);
  });
});

describe('a reader holding a finished archive', () => {
  it('is waited for, told once, and given up on with one clear error after the limit', async () => {
    const db = await finishedArchive();
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    const told: string[] = [];
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM meta').get();
      await expect(openCrawlArchive(db, 'existing', testOwner, { onWait: (line) => told.push(line), readerWaitMs: 600 })).rejects.toThrow(
        expect.objectContaining({
          code: 'ARCHIVE_BUSY',
          message: expect.stringMatching(
            /is busy: a reader \(query, stats or another program\) kept it open for \d+ s; close it and run again$/,
          ),
        }),
      );
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
    expect(told).toEqual([`waiting for a reader (query, stats or another program) to close ${db}...`]);
    expect(existsSync(`${db}-lock`)).toBe(false);
    const archive = await openCrawlArchive(db, 'existing', testOwner);
    archive.close();
  });
});
