import type { ChildProcess } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { replyAfter } from './support/delayed-reply.js';
import { linkedPage, pagePath, sitePaths } from './support/linked-site.js';
import { mulberry32 } from './support/prng.js';
import { killAll } from './support/process-tree.js';
import { startServer, type Handler, type TestServer } from './support/test-server.js';
import { abs, pathOf } from './support/urls.js';
import { exitWithin, sleep, waitForHits } from './support/wait.js';

// Crash-exact resume under chaos: a crawl of a ~500-page site with the real
// CLI at -c 8 (plain, then --compact) is killed with SIGKILL ten times at moments drawn from a seeded
// PRNG, resumed after each kill, and finally resumed to the end. Whatever the
// moment, the archive must stay intact, keep nothing `done` without its page,
// and fetch again only what was in flight at a kill.
//
// Reproduce a failure with CHAOS_SEED=<seed printed by the test>.

const N = 500;
const CONCURRENCY = 8;
/** The same crawl into a plain archive and into a --compact one (bodies compressed on the parse threads). */
const VARIANTS = [
  { name: 'plain', kills: 10, flags: [] as string[] },
  { name: 'compact', kills: 10, flags: ['--compact'] },
];
const ALL_PATHS = sitePaths(N);
const TOTAL = ALL_PATHS.length;

/** Kill moments are drawn in [FIRST_KILL, LAST_KILL] server hits (counted from the first start), one per stratum. */
const FIRST_KILL = 12;
const LAST_KILL = TOTAL - 70;
/** A restarted process is allowed this many requests before it can be killed: more than it can have to fetch again. */
const MIN_RUN_HITS = CONCURRENCY + 4;
/** Extra milliseconds (drawn) between reaching the hit count and the kill, so kills land at every step of a request. */
const MAX_JITTER_MS = 15;

const DEFAULT_SEED = 0x5eed_c4a0;
const SEED = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) >>> 0 : DEFAULT_SEED;

/** Every answer takes 20–30 ms, fixed per path. */
function latencyOf(path: string): number {
  let h = 2166136261;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 16777619) >>> 0;
  return 20 + (h % 11);
}

// Page i links to i+1 (so everything is reachable from /p/0), 7i+3 and 13i+5 (mod N) and the index.

/** Serves the site; the delay is cancelled when the client goes away, so a killed crawler leaves no timers behind. */
const site: Handler = (_req, res, path) => {
  let body: string | undefined;
  let type = 'text/html; charset=utf-8';
  if (path === '/robots.txt') {
    body = 'User-agent: *\nAllow: /\n';
    type = 'text/plain';
  }
  if (path === '/')
    body = `<!doctype html><html><head><title>index</title></head><body><h1>index</h1><a href="${pagePath(0)}">start</a></body></html>`;
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < N) body = linkedPage(Number(match[1]), N, pagePath);
  return replyAfter(res, { body, contentType: type, delayMs: latencyOf(path) });
};

let server: TestServer;
const tmp = tempDir();
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer(site);
});

afterEach(() => {
  killAll(children);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

/** Cumulative server-hit counts at which to kill: one per stratum of [FIRST_KILL, LAST_KILL], so kills land throughout the crawl. */
function drawKillMoments(random: () => number, kills: number): { hits: number; jitterMs: number }[] {
  const width = (LAST_KILL - FIRST_KILL) / kills;
  return Array.from({ length: kills }, (_, k) => ({
    hits: Math.floor(FIRST_KILL + k * width + random() * width),
    jitterMs: Math.floor(random() * (MAX_JITTER_MS + 1)),
  }));
}

interface Snapshot {
  kill: number;
  /** Paths stored (in `pages`) when the killed process was gone. */
  stored: Set<string>;
  /** Paths left `fetching` by the killed process. */
  fetching: Set<string>;
  /** Paths requested and not stored: in flight at the kill. */
  lost: number;
  pages: number;
  /** Server hit counts per path after the killed process was gone. */
  hits: Map<string, number>;
  /** Requests the killed run made. */
  runHits: number;
}

/** What a killed crawl left behind, checked for the invariants a crash must keep. */
function checkAfterKill(db: string, kill: number, runHits: number): Snapshot {
  expect(integrity(db), `integrity after kill ${kill}`).toBe('ok');
  const doneWithoutPage = readArchive<{ url: string }>(
    db,
    "SELECT url FROM urls WHERE state = 'done' AND url NOT IN (SELECT url FROM pages)",
  );
  expect(doneWithoutPage, `done without a page after kill ${kill}`).toEqual([]);
  const urls = readArchive<{ url: string; state: string }>(db, 'SELECT url, state FROM urls');
  const pages = readArchive<{ url: string }>(db, 'SELECT url FROM pages').map((row) => row.url);
  expect(pages.length, `a page stored twice after kill ${kill}`).toBe(new Set(pages).size);
  // Every answer of this site is a 200: a URL is queued, in flight or done, never failed or skipped.
  expect(
    urls.filter((row) => !['queued', 'fetching', 'done'].includes(row.state)),
    `after kill ${kill}`,
  ).toEqual([]);
  const snapshot: Snapshot = {
    kill,
    stored: new Set(pages.map(pathOf)),
    fetching: new Set(urls.filter((row) => row.state === 'fetching').map((row) => pathOf(row.url))),
    pages: pages.length,
    hits: new Map(server.hits),
    runHits,
    lost: 0,
  };
  // Done and stored are the same thing.
  expect(new Set(urls.filter((row) => row.state === 'done').map((row) => pathOf(row.url)))).toEqual(snapshot.stored);
  // At most the cap of requests in flight plus as many pages waiting to commit: requested and not stored.
  // (`fetching` may also hold URLs claimed but never requested; those cost nothing to queue again.)
  const lost = [...snapshot.hits.keys()].filter((path) => !snapshot.stored.has(path));
  expect(lost.length, `requested but not stored at kill ${kill}: ${lost.join(' ')}`).toBeLessThanOrEqual(2 * CONCURRENCY);
  snapshot.lost = lost.length;
  // Killed in the middle: the crawl was not over.
  expect(snapshot.pages, `the crawl was complete at kill ${kill}`).toBeLessThan(TOTAL);
  // Every path the server was asked for is either stored or was in flight at the kill.
  for (const path of snapshot.hits.keys()) {
    expect(
      snapshot.stored.has(path) || snapshot.fetching.has(path),
      `${path} was requested but is neither stored nor in flight at kill ${kill}`,
    ).toBe(true);
  }
  return snapshot;
}

/** Paths fetched again by the run after a kill: they must have been requested and not stored at the kill, one new request each. */
function refetchedAfter(snapshot: Snapshot, hitsAfterNextRun: Map<string, number>): string[] {
  const refetched = [...snapshot.hits.entries()]
    .filter(([path, before]) => (hitsAfterNextRun.get(path) ?? 0) > before)
    .map(([path]) => path)
    .sort();
  for (const path of refetched) {
    expect(snapshot.stored.has(path), `${path} was stored at kill ${snapshot.kill} and fetched again`).toBe(false);
    expect(snapshot.fetching.has(path), `${path} fetched again after kill ${snapshot.kill} but was not in flight then`).toBe(true);
    expect(hitsAfterNextRun.get(path), `${path} requested more than once by the run after kill ${snapshot.kill}`).toBe(
      snapshot.hits.get(path)! + 1,
    );
  }
  expect(refetched.length, `paths fetched again after kill ${snapshot.kill}`).toBeLessThanOrEqual(2 * CONCURRENCY);
  return refetched;
}

it.each(VARIANTS)(
  'survives $kills SIGKILLs at random moments ($name archive): every page exactly once, only in-flight requests repeated',
  async ({ name, kills, flags }) => {
    console.log(`chaos: seed ${SEED} (set CHAOS_SEED=${SEED} to reproduce)`);
    const started = Date.now();
    const random = mulberry32(SEED);
    const moments = drawKillMoments(random, kills);
    console.log(`chaos: kill moments (server hits, jitter ms): ${moments.map((m) => `${m.hits}+${m.jitterMs}ms`).join(', ')}`);

    server.hits.clear();
    const db = tmp.path(`chaos-${name}.sqlite`);
    const snapshots: Snapshot[] = [];
    let argv = ['crawl', server.url, '--db', db, '-c', String(CONCURRENCY), ...flags];

    for (let k = 0; k < kills; k++) {
      const atStart = server.totalHits();
      const child = spawnCli(argv);
      children.push(child);
      const target = Math.max(moments[k]!.hits, atStart + MIN_RUN_HITS);
      await waitForHits(server, target, child, 60_000);
      if (moments[k]!.jitterMs > 0) await sleep(moments[k]!.jitterMs);
      expect(child.exitCode, `the crawl ended before kill ${k + 1}: ${child.output().stderr.trim()}`).toBeNull();
      child.kill('SIGKILL');
      const run = await exitWithin(child.exited, 10_000);
      expect(run, `no exit within 10 s of SIGKILL ${k + 1}`).not.toBeNull();
      expect(child.signalCode, `run ${k + 1} was not killed by SIGKILL (${run!.stderr})`).toBe('SIGKILL');

      if (k > 0) {
        // The killed run was a resume: it said what it found, including what the previous kill left in flight.
        const previous = snapshots[k - 1]!;
        expect(run!.stderr).toContain(`resuming ${db}: ${previous.pages} done`);
        if (previous.fetching.size > 0)
          expect(run!.stderr).toContain(`, ${previous.fetching.size} left in flight by the last run are queued again`);
        else expect(run!.stderr).not.toContain('left in flight');
      }
      const snapshot = checkAfterKill(db, k + 1, server.totalHits() - atStart);
      if (k > 0) expect(snapshot.pages, `pages went down at kill ${k + 1}`).toBeGreaterThanOrEqual(snapshots[k - 1]!.pages);
      snapshots.push(snapshot);
      argv = ['resume', db];
    }

    const atLastStart = server.totalHits();
    const last = spawnCli(['resume', db]);
    children.push(last);
    const final = await exitWithin(last.exited, 120_000);
    expect(final, 'the last resume did not finish within 120 s').not.toBeNull();
    expect(final!.code, final!.stderr).toBe(0);
    const lastSnapshot = snapshots[kills - 1]!;
    expect(final!.stderr).toContain(`resuming ${db}: ${lastSnapshot.pages} done`);
    if (lastSnapshot.fetching.size > 0)
      expect(final!.stderr).toContain(`, ${lastSnapshot.fetching.size} left in flight by the last run are queued again`);
    expect(final!.stdout).toContain(`URLs      ${TOTAL} seen: ${TOTAL} done, 0 failed, 0 skipped, 0 queued`);
    expect(final!.stdout).toContain(`Pages     ${TOTAL} stored;`);
    const finalHits = new Map(server.hits);

    // The kills landed throughout the crawl, not all at its start.
    expect(snapshots[kills - 1]!.pages).toBeGreaterThan(snapshots[0]!.pages);
    expect(snapshots[kills - 1]!.pages).toBeGreaterThan(TOTAL / 2);

    // The archive is complete: every page exactly once, every URL done, nothing done without its page.
    expect(integrity(db)).toBe('ok');
    const pages = readArchive<{ url: string; status: number }>(db, 'SELECT url, status FROM pages');
    expect(pages.length).toBe(new Set(pages.map((page) => page.url)).size);
    expect(new Set(pages.map((page) => page.url))).toEqual(new Set(ALL_PATHS.map((path) => abs(server, path))));
    expect(pages.filter((page) => page.status !== 200)).toEqual([]);
    const states = readArchive<{ state: string; n: number }>(db, 'SELECT state, count(*) AS n FROM urls GROUP BY state');
    expect(states).toEqual([{ state: 'done', n: TOTAL }]);
    expect(readArchive(db, "SELECT url FROM urls WHERE state = 'done' AND url NOT IN (SELECT url FROM pages)")).toEqual([]);
    const robots = readArchive<{ kind: string }>(db, 'SELECT kind FROM pages WHERE url = ?', abs(server, '/robots.txt'));
    expect(robots).toEqual([{ kind: 'robots' }]);
    if (flags.includes('--compact')) {
      // Every page was stored compressed, by whichever run fetched it, and reads back as served.
      const stored = readArchive<{ url: string; body: Buffer; size: number }>(
        db,
        "SELECT url, body, size FROM pages WHERE url LIKE '%/p/%'",
      );
      expect(stored).toHaveLength(N);
      for (const page of stored) {
        expect(page.body.length, page.url).toBeLessThan(page.size);
        expect(inflateSync(page.body).toString(), page.url).toBe(linkedPage(Number(/\/p\/(\d+)$/.exec(page.url)![1]), N, pagePath));
      }
    }

    // The server was asked for the site's paths only, each at least once.
    expect(new Set(finalHits.keys())).toEqual(new Set(ALL_PATHS));

    // Per kill: only what was requested and not stored at the kill was fetched again, by the next run, at most twice the concurrency.
    const refetchedPerKill = snapshots.map((snapshot, k) => refetchedAfter(snapshot, k + 1 < kills ? snapshots[k + 1]!.hits : finalHits));
    // A page stored before a kill is never fetched again, by any later run.
    for (const snapshot of snapshots) {
      for (const path of snapshot.stored) {
        expect(finalHits.get(path), `${path} stored at kill ${snapshot.kill} and fetched again later`).toBe(snapshot.hits.get(path));
      }
    }
    // In all: the extra requests are exactly those re-fetches, at most twice the concurrency per kill.
    const extra = [...finalHits.values()].reduce((sum, hits) => sum + hits - 1, 0);
    const perKill = refetchedPerKill.map((paths) => paths.length);
    expect(extra).toBe(perKill.reduce((a, b) => a + b, 0));
    expect(extra).toBeLessThanOrEqual(2 * CONCURRENCY * kills);

    // The archive's own report agrees with the views.
    const stats = await execCli(['stats', db, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const report = JSON.parse(stats.stdout) as {
      runs: number;
      pages: number;
      urls: { done: number; failed: number; skipped: number; queued: number; fetching: number; total: number };
    };
    const count = (sql: string) => readArchive<{ n: number }>(db, sql)[0]!.n;
    expect(report.urls).toEqual({
      done: count("SELECT count(*) AS n FROM urls WHERE state = 'done'"),
      failed: count("SELECT count(*) AS n FROM urls WHERE state = 'failed'"),
      skipped: count("SELECT count(*) AS n FROM urls WHERE state = 'skipped'"),
      queued: count("SELECT count(*) AS n FROM urls WHERE state = 'queued'"),
      fetching: count("SELECT count(*) AS n FROM urls WHERE state = 'fetching'"),
      total: count('SELECT count(*) AS n FROM urls'),
    });
    expect(report.pages).toBe(count('SELECT count(*) AS n FROM pages'));
    expect(report.urls.total).toBe(TOTAL);
    expect(report.urls.done).toBe(TOTAL);
    expect(report.pages).toBe(TOTAL);
    expect(report.runs).toBe(kills + 1);

    const runtimeMs = Date.now() - started;
    console.log(
      `chaos: seed ${SEED}, ${kills} kills, ${report.pages} pages (${TOTAL} URLs), ${server.totalHits()} requests, runtime ${(runtimeMs / 1000).toFixed(1)} s`,
    );
    console.log(`chaos: pages stored at each kill: ${snapshots.map((s) => s.pages).join(', ')}`);
    console.log(
      `chaos: requests per killed run: ${snapshots.map((s) => s.runHits).join(', ')}; last run ${server.totalHits() - atLastStart}`,
    );
    console.log(
      `chaos: requested and not stored at each kill: ${snapshots.map((s) => s.lost).join(', ')}; left fetching: ${snapshots.map((s) => s.fetching.size).join(', ')}`,
    );
    console.log(
      `chaos: re-fetched after each kill: ${perKill.join(', ')} (total extra fetches ${extra}, limit ${2 * CONCURRENCY * kills})`,
    );
  },
  // The crawls' own time (about 20 s on a quiet machine) with room for a loaded one; how long it takes is reported above, not judged.
  360_000,
);
