import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { resolveRoots } from '../src/run/resolve-roots.js';
import { httpFetcher } from '../src/http/http-fetcher.js';
import { crawl } from '../src/pipeline/crawl.js';
import { DEFAULT_OPTIONS, type CrawlOptions } from '../src/pipeline/crawl-options.js';
import { CrawlStop } from '../src/pipeline/crawl-stop.js';
import { ArchiveWriteError } from '../src/storage/archive/archive-errors.js';
import { CrawlRecord } from '../src/storage/crawl-state/crawl-record.js';
import { closeArchive, openArchive } from '../src/storage/archive/open-archive.js';
import type { CommitResult, PageOutcome, PageSinkPort } from '../src/pipeline/ports.js';
import { SqliteFrontier } from '../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../src/storage/crawl-state/sqlite-page-sink.js';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { BIN, spawnCli, type CliRun } from './support/cli.js';
import { replyAfter } from './support/delayed-reply.js';
import { linkedPage } from './support/linked-site.js';
import { mulberry32 } from './support/prng.js';
import { killAll } from './support/process-tree.js';
import { startServer, type Handler, type TestServer } from './support/test-server.js';
import { pathOf } from './support/urls.js';
import { exitWithin, sleep, waitFor } from './support/wait.js';

// Disk full and I/O errors while writing: the crawl stops with one line and
// exit 1, the archive stays consistent (each page is committed whole or not
// at all), and `resume` finishes the crawl once there is room again.

const tmp = tempDir();

// ---------------------------------------------------------------------------
// A site of large pages, to fill a small disk: 200 pages of ~50 KB each, all different.
const BIG_N = 200;
const BIG_PAGE_BYTES = 50 * 1024;
const BIG_CONCURRENCY = 4;
const bigPage = (i: number) => `/p/${i}`;
const BIG_PATHS = ['/robots.txt', '/', ...Array.from({ length: BIG_N }, (_, i) => bigPage(i))];
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,';
const bigBodies = new Map<number, Buffer>();

function bigBody(i: number): Buffer {
  let body = bigBodies.get(i);
  if (!body) {
    const random = mulberry32(i + 1);
    const filler = Buffer.alloc(BIG_PAGE_BYTES);
    for (let k = 0; k < filler.length; k++) filler[k] = ALPHABET.charCodeAt(Math.floor(random() * ALPHABET.length));
    const links = [(i + 1) % BIG_N, (2 * i) % BIG_N, (3 * i) % BIG_N].map((t) => `<a href="${bigPage(t)}">page ${t}</a>`).join(' ');
    body = Buffer.concat([
      Buffer.from(`<!doctype html><html><head><title>big ${i}</title></head><body>${links} <a href="/">index</a><p>`),
      filler,
      Buffer.from('</p></body></html>'),
    ]);
    bigBodies.set(i, body);
  }
  return body;
}

const bigSite: Handler = (_req, res, path) => {
  if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
  if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<a href="${bigPage(0)}">start</a>`);
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < BIG_N)
    return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bigBody(Number(match[1])));
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
};

// ---------------------------------------------------------------------------
// A site of small pages for the error injected at the storage port; two of its
// pages hang while `hang.on` is set, so requests are in flight when the error comes.
const SMALL_N = 60;
const SMALL_CONCURRENCY = 4;
const SMALL_DELAY_MS = 10;
const smallPage = (i: number) => `/s/${i}`;
const SMALL_PATHS = ['/', ...Array.from({ length: SMALL_N }, (_, i) => smallPage(i))];
const HANG_PATHS = [smallPage(3), smallPage(7)];
const HANG_MS = 30_000;
const hang = { on: false, waiting: 0 };

const smallSite: Handler = (_req, res, path) => {
  let body: string | undefined;
  // The index links to the first ten pages, so the hanging ones do not cut the rest off.
  if (path === '/')
    body = `<!doctype html><html><body>${Array.from({ length: 10 }, (_, i) => `<a href="${smallPage(i)}">${i}</a>`).join(' ')}</body></html>`;
  const match = /^\/s\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < SMALL_N) body = linkedPage(Number(match[1]), SMALL_N, smallPage, 'small');
  const hangs = hang.on && HANG_PATHS.includes(path);
  return replyAfter(res, {
    body,
    delayMs: hangs ? HANG_MS : SMALL_DELAY_MS,
    onWait: () => hangs && (hang.waiting += 1),
    onSettle: () => hangs && (hang.waiting -= 1),
  });
};

// ---------------------------------------------------------------------------
// A small tmpfs for a real full disk: needs root on Linux. Mounted while the
// file is collected, so the test can be skipped when it cannot be.
const smallDisk = join(tmp.dir, 'small');
const disk = mountSmallDisk();

function mountSmallDisk(): { mounted: boolean; why: string } {
  if (process.platform !== 'linux') return { mounted: false, why: `tmpfs mounts need Linux, this is ${process.platform}` };
  if (process.getuid?.() !== 0) return { mounted: false, why: `mounting a tmpfs needs root, this is uid ${process.getuid?.()}` };
  try {
    mkdirSync(smallDisk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', smallDisk], { stdio: 'pipe', timeout: 10_000 });
    return { mounted: true, why: '' };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { mounted: false, why: `mount -t tmpfs failed: ${stderr || (error as Error).message}` };
  }
}

function unmountSmallDisk(): void {
  if (!disk.mounted) return;
  try {
    execFileSync('umount', [smallDisk], { stdio: 'pipe', timeout: 10_000 });
  } catch {
    // Still busy (a killed child's file): detach it, so the directory can be removed.
    execFileSync('umount', ['-l', smallDisk], { stdio: 'pipe', timeout: 10_000 });
  }
  disk.mounted = false;
}

let bigServer: TestServer;
let smallServer: TestServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  bigServer = await startServer(bigSite);
  smallServer = await startServer(smallSite);
});

afterEach(() => {
  hang.on = false;
  killAll(children);
});

afterAll(async () => {
  await bigServer?.close();
  await smallServer?.close();
  try {
    unmountSmallDisk();
  } finally {
    tmp.cleanup();
  }
});

/** Runs the real CLI to its end, bounded in time. */
async function cli(argv: string[], ms = 30_000): Promise<CliRun> {
  const child = spawnCli(argv);
  children.push(child);
  const run = await exitWithin(child.exited, ms);
  expect(run, `crawlite ${argv.join(' ')} did not exit within ${ms} ms`).not.toBeNull();
  return run!;
}

/** Runs the real CLI under a file-size limit (ulimit -f, in the shell's blocks): a write past it fails with EFBIG. */
async function cliWithFileLimit(blocks: number, argv: string[], ms = 30_000): Promise<CliRun> {
  const child = spawn('sh', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, BIN, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<CliRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr })),
  );
  const run = await exitWithin(exited, ms);
  expect(run, `crawlite ${argv.join(' ')} under ulimit -f did not exit within ${ms} ms`).not.toBeNull();
  return run!;
}

/** The one line a write error must print: what failed, where, that the archive is fine, and to resume. No stack trace. */
function expectWriteErrorLine(line: string, stderr: string, db: string, cause: RegExp): void {
  expect(line, stderr).toMatch(/^crawlite: cannot write to /);
  expect(line).toContain(db);
  expect(line).toMatch(cause);
  expect(line).toContain('consistent');
  expect(line).toContain('resume');
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/unexpected error|SqliteError|Error:/);
}

interface Leftover {
  /** Paths stored. */
  stored: Set<string>;
  /** Paths requested and not stored. */
  lost: string[];
  hits: Map<string, number>;
}

/** The archive a failed write left: intact, partial, nothing `done` without its page, no URL failed for the disk's sake. */
function checkConsistent(db: string, server: TestServer, total: number): Leftover {
  expect(integrity(db)).toBe('ok');
  expect(readArchive(db, "SELECT url FROM urls WHERE state = 'done' AND url NOT IN (SELECT url FROM pages)")).toEqual([]);
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => pathOf(row.url));
  expect(pages.length).toBe(new Set(pages).size);
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.length).toBeLessThan(total);
  const urls = readArchive<{ url: string; state: string }>(db, 'SELECT url, state FROM urls');
  // A write error is not the page's fault: nothing is marked failed or skipped for it.
  expect(urls.filter((row) => !['queued', 'fetching', 'done'].includes(row.state))).toEqual([]);
  const done = new Set(urls.filter((row) => row.state === 'done').map((row) => pathOf(row.url)));
  const stored = new Set(pages);
  expect(done).toEqual(stored);
  const hits = new Map(server.hits);
  const lost = [...hits.keys()].filter((path) => !stored.has(path));
  return { stored, lost, hits };
}

/** After the resume: every page exactly once, every URL done, and nothing stored before the error fetched again. */
function checkComplete(db: string, server: TestServer, paths: string[], before: Leftover, concurrency: number): void {
  expect(integrity(db)).toBe('ok');
  const pages = readArchive<{ url: string; status: number }>(db, 'SELECT url, status FROM pages');
  expect(pages.length).toBe(new Set(pages.map((page) => page.url)).size);
  expect(new Set(pages.map((page) => pathOf(page.url)))).toEqual(new Set(paths));
  expect(pages.filter((page) => page.status !== 200)).toEqual([]);
  expect(readArchive(db, 'SELECT state, count(*) AS n FROM urls GROUP BY state')).toEqual([{ state: 'done', n: paths.length }]);
  expect(new Set(server.hits.keys())).toEqual(new Set(paths));
  for (const path of before.stored)
    expect(server.hitCount(path), `${path} was stored before the error and fetched again`).toBe(before.hits.get(path));
  // Only what was in flight when the write failed is fetched twice.
  const refetched = paths.filter((path) => server.hitCount(path) > 1);
  for (const path of refetched) expect(before.lost, `${path} fetched twice`).toContain(path);
  for (const path of paths) expect(server.hitCount(path), path).toBeLessThanOrEqual(2);
  // Requests in flight plus pages waiting to commit: at most twice the concurrency.
  expect(refetched.length).toBeLessThanOrEqual(2 * concurrency);
}

// ---------------------------------------------------------------------------

if (!disk.mounted) console.log(`write-errors: skipping the real full-disk test: ${disk.why}`);

it.skipIf(!disk.mounted)(
  'a full disk stops the crawl with one line and exit 1; after room is made, the archive is intact and resume finishes it',
  async () => {
    bigServer.hits.clear();
    const db = join(smallDisk, 'full.sqlite');
    // --min-free-disk 0 (stored, so the resume keeps it): a crawl would pause on this small disk rather than fill it.
    const run = await cli(['crawl', bigServer.url, '--db', db, '-c', String(BIG_CONCURRENCY), '-q', '--min-free-disk', '0']);
    expect(run.code, run.stderr).toBe(1);
    // Quiet: the error is the only thing printed, on one line.
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines, run.stderr).toHaveLength(1);
    expectWriteErrorLine(lines[0]!, run.stderr, db, /full/);
    expect(run.stdout).toBe('');
    // The disk really was full.
    const { bavail, bsize } = statfsSync(smallDisk);
    expect(bavail * bsize).toBeLessThan(256 * 1024);

    // Make room, as a user would, and look at what the failed crawl left.
    execFileSync('mount', ['-o', 'remount,size=256m', smallDisk], { stdio: 'pipe', timeout: 10_000 });
    const before = checkConsistent(db, bigServer, BIG_PATHS.length);
    // A write error stops the crawl at once: at most what was in flight or waiting to commit is lost.
    expect(before.lost.length, before.lost.join(' ')).toBeLessThanOrEqual(2 * BIG_CONCURRENCY);

    const resumed = await cli(['resume', db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${db}: ${before.stored.size} done`);
    expect(resumed.stdout).toContain(`URLs      ${BIG_PATHS.length} seen: ${BIG_PATHS.length} done, 0 failed, 0 skipped, 0 queued`);
    checkComplete(db, bigServer, BIG_PATHS, before, BIG_CONCURRENCY);
    console.log(
      `write-errors: the full disk held ${before.stored.size} of ${BIG_PATHS.length} pages; resume fetched ${before.lost.length} again`,
    );
  },
  60_000,
);

it('a write past the file-size limit (an I/O error, no root needed) stops the real CLI with one line; resume finishes', async () => {
  bigServer.hits.clear();
  const db = tmp.path('limited.sqlite');
  // 4096 blocks (2 or 4 MiB, by the shell's block size): far less than the site's 10 MiB.
  const run = await cliWithFileLimit(4096, ['crawl', bigServer.url, '--db', db, '-c', String(BIG_CONCURRENCY)]);
  expect(run.code, run.stderr).toBe(1);
  // Normal verbosity: the start line, then the error on one line, and nothing else.
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines[0], run.stderr).toMatch(/^crawling /);
  expect(lines.slice(1), run.stderr).toHaveLength(1);
  expectWriteErrorLine(lines[1]!, run.stderr, db, /I\/O error|full/);
  // No report is printed for a crawl that could not write.
  expect(run.stdout).toBe('');

  const before = checkConsistent(db, bigServer, BIG_PATHS.length);
  expect(before.lost.length, before.lost.join(' ')).toBeLessThanOrEqual(2 * BIG_CONCURRENCY);

  const resumed = await cli(['resume', db]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`resuming ${db}: ${before.stored.size} done`);
  checkComplete(db, bigServer, BIG_PATHS, before, BIG_CONCURRENCY);
});

/**
 * A sink whose storage fails with an I/O error once `okCommits` pages are committed, like a disk going bad
 * mid-crawl. The crawl commits pages finished together in one transaction (commitAll), so the failure hits a
 * whole transaction: `commits` counts the pages actually stored.
 */
class FailingSink implements PageSinkPort {
  commits = 0;
  failedCommits = 0;
  error: ArchiveWriteError | undefined;
  failedAt = 0;
  /** Requests of the hanging pages in flight when the write failed. */
  hangingAtFailure = 0;

  constructor(
    private readonly inner: PageSinkPort,
    private readonly path: string,
    private readonly okCommits: number,
  ) {}

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    if (this.commits >= this.okCommits) {
      this.failedCommits += 1;
      if (!this.error) {
        this.error = new ArchiveWriteError(this.path, { cause: Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }) });
        this.failedAt = Date.now();
        this.hangingAtFailure = hang.waiting;
      }
      throw this.error;
    }
    const results = await this.inner.commitAll(outcomes);
    this.commits += outcomes.length;
    return results;
  }
}

it('an I/O error at the storage port rejects the crawl at once with ArchiveWriteError; the archive is consistent and resume finishes it', async () => {
  smallServer.hits.clear();
  hang.on = true;
  const OK_COMMITS = 20;
  let committed = 0;
  const path = tmp.path('port.sqlite');
  const options: CrawlOptions = { ...DEFAULT_OPTIONS, userAgent: 'test', robots: false, concurrency: SMALL_CONCURRENCY };

  // The ports, built the way run-crawl builds them.
  const db = openArchive(path, 'create');
  try {
    const record = new CrawlRecord(db);
    const seeds = resolveRoots([smallServer.url]);
    const roots = seeds.map((seed) => seed.url);
    const { userAgent: _ua, ...storable } = options;
    record.save(roots, storable);
    const runId = record.startRun(options, new Date());
    const frontier = new SqliteFrontier(db);
    frontier.addRoots(seeds);
    const sink = new FailingSink(
      new SqlitePageSink(db, path, runId, { maxPerPath: options.maxPerPath, maxDepth: options.maxDepth }),
      path,
      OK_COMMITS,
    );

    const running = lastValueFrom(crawl({ frontier, sink, fetcher: httpFetcher(options) }, roots, options, new CrawlStop()).reports).then(
      () => ({ settledAt: Date.now() }),
      (error: unknown) => ({ error, settledAt: Date.now() }),
    );
    let timer: NodeJS.Timeout | undefined;
    const outcome: { error?: unknown; settledAt: number } | null = await Promise.race([
      running,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 20_000))),
    ]);
    clearTimeout(timer);
    expect(outcome, 'the crawl neither ended nor failed within 20 s').not.toBeNull();

    // It rejected, with the very error the storage raised.
    expect(outcome!, 'the crawl completed despite the write error').toHaveProperty('error');
    const error = outcome!.error;
    expect(error).toBe(sink.error);
    expect(error).toBeInstanceOf(ArchiveWriteError);
    expect((error as ArchiveWriteError).code).toBe('ARCHIVE_WRITE');
    expect(((error as ArchiveWriteError).cause as { code: string }).code).toBe('SQLITE_IOERR');
    expect((error as Error).message).toBe(
      `cannot write to ${path}: disk I/O error; the archive is consistent, run resume once the problem is fixed`,
    );
    expect((error as Error).message).not.toContain('\n');

    // At once: requests were in flight (two of them hang for 30 s) and were abandoned, not awaited.
    expect(sink.hangingAtFailure, 'the hanging pages were not in flight when the write failed').toBe(HANG_PATHS.length);
    // Far short of the 30 s they hang (milliseconds on a quiet machine), with room for a loaded one.
    expect(outcome!.settledAt - sink.failedAt).toBeLessThan(10_000);
    await waitFor('the abandoned requests to be closed', () => hang.waiting === 0, 20_000);
    // Nothing more is written or requested after the error.
    const hitsAtFailure = smallServer.totalHits();
    await sleep(200);
    expect(sink.failedCommits, 'transactions tried after the first write error').toBe(1);
    expect(sink.commits).toBeGreaterThanOrEqual(OK_COMMITS);
    committed = sink.commits;
    expect(smallServer.totalHits(), 'requests started after the write error').toBe(hitsAtFailure);
  } finally {
    closeArchive(db);
  }

  const before = checkConsistent(path, smallServer, SMALL_PATHS.length);
  // Exactly the pages of the transactions that succeeded are stored; the failed one left nothing.
  expect(before.stored.size).toBe(committed);
  for (const path of HANG_PATHS) expect(before.stored.has(path)).toBe(false);
  expect(before.lost.length, before.lost.join(' ')).toBeLessThanOrEqual(2 * SMALL_CONCURRENCY);

  // The real CLI resumes the archive (robots off and the concurrency as stored) and finishes it.
  hang.on = false;
  const resumed = await cli(['resume', path]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`resuming ${path}: ${committed} done`);
  expect(resumed.stdout).toContain(`URLs      ${SMALL_PATHS.length} seen: ${SMALL_PATHS.length} done, 0 failed, 0 skipped, 0 queued`);
  checkComplete(path, smallServer, SMALL_PATHS, before, SMALL_CONCURRENCY);
  for (const path of HANG_PATHS) expect(smallServer.hitCount(path), path).toBe(2);
});
