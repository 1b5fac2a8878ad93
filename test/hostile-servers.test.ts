import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { spawnCli, type CliRun } from './support/cli.js';
import {
  BAD_CHARSET_TITLE,
  BAD_REDIRECTS,
  BAD_UTF8_BODY,
  BINARY_HTML,
  CL_SHORTER,
  FOLLOW_UPS,
  LONG_URL_PATH,
  RESET_MID_BODY,
  STALL_PROBE,
  startHostileServer,
  TRICKLE,
  WAIT_HOPS,
  type HostileServer,
} from './support/hostile-server.js';
import { killAll } from './support/process-tree.js';
import { abs } from './support/urls.js';

// One crawl of a server that misbehaves in every way we could think of, with
// the real CLI (dist/bundle/crawlite.js) as a child process so its memory can be
// watched. The crawl must end by itself with exit 0, record each failure
// with a reason, store nothing half-received, fetch nothing but http(s) and
// keep its memory flat; then each scenario's outcome is read back. The
// server serves its scenarios in three waves (see WAIT_HOPS there) so one
// page's CPU cost cannot change another scenario's outcome; the stall probe
// measures that cost on purpose.

const TIMEOUT_MS = 1500;
const MAX_TRIES = 2;
const MAX_BODY = 10 * 1024 * 1024;
const MAX_PAGES = 200;
/**
 * The crawl is killed past this; the test then fails on it. The crawl takes about 8 s on a quiet machine
 * (mostly waiting: timed-out tries, the waves' holds); this is room for a machine running other suites too.
 */
const CRAWL_DEADLINE_MS = 150_000;
/** How late a timed-out try may end on the server's clock: the crawler's timers and this process's event loop, on a loaded machine. */
const SLACK_MS = 2500;
/**
 * How early a timed-out try may end on the server's clock: the crawler's --timeout also counts the connection's
 * setup, and this process may note the request's arrival late. Still far from a try that did not wait.
 */
const EARLY_MS = TIMEOUT_MS / 2;
const PEAK_RSS_LIMIT_BYTES = 350 * 1024 * 1024;
const SAMPLE_EVERY_MS = 50;

let server: HostileServer;
const tmp = tempDir();
const db = tmp.path('hostile.sqlite');
const children: ChildProcess[] = [];

let run: CliRun;
let crawlMs = 0;
let killedAtDeadline = false;
let peakRssBytes = 0;
let rssSamples = 0;

/** Samples a process's peak RSS (VmHWM) from /proc every 50 ms, at most `maxSamples` times. */
function watchPeakRss(pid: number, maxSamples: number): { stop(): void } {
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
      if (kb > 0) rssSamples += 1;
      peakRssBytes = Math.max(peakRssBytes, kb * 1024);
    } catch {
      // Exited between samples.
    }
  };
  let taken = 0;
  const timer = setInterval(() => {
    taken += 1;
    sample();
    if (taken >= maxSamples) clearInterval(timer);
  }, SAMPLE_EVERY_MS);
  return { stop: () => clearInterval(timer) };
}

beforeAll(async () => {
  server = await startHostileServer();
  const started = performance.now();
  const child = spawnCli([
    'crawl',
    server.url,
    server.refusedUrl,
    '--db',
    db,
    '--timeout',
    String(TIMEOUT_MS),
    '--max-tries',
    String(MAX_TRIES),
    '--retry-delay',
    '10',
    '--max-body',
    String(MAX_BODY),
    '--max-pages',
    String(MAX_PAGES),
    '--ignore-robots',
    '-c',
    '10',
  ]);
  children.push(child);
  const watch = watchPeakRss(child.pid!, Math.ceil(CRAWL_DEADLINE_MS / SAMPLE_EVERY_MS) + 10);
  const deadline = setTimeout(() => {
    killedAtDeadline = true;
    child.kill('SIGKILL');
  }, CRAWL_DEADLINE_MS);
  try {
    run = await child.exited;
  } finally {
    clearTimeout(deadline);
    watch.stop();
  }
  crawlMs = performance.now() - started;
}, CRAWL_DEADLINE_MS + 15_000);

afterEach(() => killAll(children));

afterAll(async () => {
  killAll(children);
  await server?.close();
  tmp.cleanup();
});

interface UrlRow {
  url: string;
  state: string;
  tries: number;
  error_code: string | null;
  error: string | null;
}

interface PageRow {
  status: number;
  location: string | null;
  body: Buffer;
  charset: string | null;
  title: string | null;
}

const href = (path: string) => (/^https?:/.test(path) ? path : abs(server, path));

function urlRow(path: string): UrlRow | undefined {
  const url = href(path);
  return readArchive<UrlRow>(db, 'SELECT url, state, tries, error_code, error FROM url WHERE url = ? OR fetch_url = ?', url, url)[0];
}

function page(path: string): PageRow | undefined {
  const url = href(path);
  return readArchive<PageRow>(db, 'SELECT status, location, body, charset, title FROM pages WHERE url = ? OR fetch_url = ?', url, url)[0];
}

const linksFrom = (path: string) =>
  readArchive<{ to_url: string }>(db, 'SELECT to_url FROM links WHERE from_url = ?', href(path)).map((row) => row.to_url);

/** Failed after every try with a recorded reason, and no page stored. */
function expectFailed(path: string, code: string | RegExp, tries = MAX_TRIES): UrlRow {
  const row = urlRow(path);
  expect(row, `${path} has a url row`).toBeDefined();
  expect(row!.state, `${path}: ${row!.error}`).toBe('failed');
  expect(row!.tries, path).toBe(tries);
  if (typeof code === 'string') expect(row!.error_code, `${path}: ${row!.error}`).toBe(code);
  else expect(row!.error_code, `${path}: ${row!.error}`).toMatch(code);
  expect(row!.error, path).toMatch(/\S/);
  expect(page(path), `${path} stores no page`).toBeUndefined();
  return row!;
}

/** How long each request of a path lasted on the server side, in ms. */
const tryDurations = (path: string) => server.tries(path).map((tried) => (tried.endedAt ?? Number.NaN) - tried.startedAt);

describe('a crawl of a hostile server', () => {
  it('ends by itself with exit 0', () => {
    expect(killedAtDeadline, `killed after ${CRAWL_DEADLINE_MS} ms\n${run.stderr.slice(-2000)}`).toBe(false);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    // The timeouts were waited for, not skipped: two tries of a silent server take 2 x --timeout.
    expect(crawlMs).toBeGreaterThan(MAX_TRIES * TIMEOUT_MS);
  });

  it('went on after each scenario: every other scenario, in every wave, was requested', () => {
    expect(urlRow('/')).toMatchObject({ state: 'done', tries: 1 });
    expect(server.indexLinks).toEqual(expect.arrayContaining([LONG_URL_PATH, server.refusedUrl, '/wait/2/0']));
    const requested = server.scenarioPaths;
    expect(requested.length).toBeGreaterThanOrEqual(20);
    for (const path of requested) expect(server.hitCount(path), path).toBeGreaterThanOrEqual(1);
    // Nothing was left in flight: every URL the crawl started reached an end.
    const [left] = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM url WHERE state = 'fetching'");
    expect(left!.n).toBe(0);
    for (const path of requested) expect(['done', 'failed'], path).toContain(urlRow(path)?.state);
    // Each later wave began because the one before had ended, not because its wait gave up.
    for (const wave of [2, 3]) expect(server.hitCount(`/wait/${wave}/${WAIT_HOPS - 1}`), `wave ${wave}`).toBe(0);
    for (const wave of [2, 3]) expect(server.hitCount(`/wait/${wave}/0`), `wave ${wave}`).toBe(1);
  });

  it('connection refused: failed with ECONNREFUSED after every try, no page', () => {
    expectFailed(server.refusedUrl, 'ECONNREFUSED');
  });

  it('reset before headers: failed after every try, no page', () => {
    expectFailed('/reset-before-headers', /^(ECONNRESET|UND_ERR_SOCKET)$/);
    expect(server.hitCount('/reset-before-headers')).toBe(MAX_TRIES);
  });

  it('reset mid-body: failed after every try, nothing half-received stored', () => {
    expectFailed('/reset-mid-body', /^(ECONNRESET|UND_ERR_SOCKET)$/);
    expect(server.hitCount('/reset-mid-body')).toBe(MAX_TRIES);
    // The partial body really was sent each time.
    expect(server.bytesWritten('/reset-mid-body')).toBeGreaterThan(MAX_TRIES * RESET_MID_BODY.sent);
    const [partial] = readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM body WHERE size = ?', RESET_MID_BODY.sent);
    expect(partial!.n).toBe(0);
  });

  it('headers that never come: failed with timeout after ~--timeout per try', () => {
    const row = expectFailed('/no-headers', 'timeout');
    expect(row.error).toContain(`${TIMEOUT_MS} ms`);
    const durations = tryDurations('/no-headers');
    expect(durations).toHaveLength(MAX_TRIES);
    for (const ms of durations) {
      expect(ms).toBeGreaterThan(TIMEOUT_MS - EARLY_MS);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
  });

  it('a body trickling one byte a second hits the whole-request timeout, not an idle one', () => {
    const row = expectFailed('/trickle', 'timeout');
    expect(row.error).toContain(`${TIMEOUT_MS} ms`);
    const durations = tryDurations('/trickle');
    expect(durations).toHaveLength(MAX_TRIES);
    // Bytes keep coming every second, so an idle timeout of 1.5 s would never fire; only a total one ends it.
    for (const ms of durations) {
      expect(ms).toBeGreaterThan(TIMEOUT_MS - EARLY_MS);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    // Cut off after a byte or two each time (the head is 67 bytes), far from the 1000 declared.
    expect(server.bytesWritten('/trickle')).toBeLessThan(MAX_TRIES * 100);
    expect(server.bytesWritten('/trickle')).toBeGreaterThan(MAX_TRIES * 67);
    expect(TRICKLE.declared).toBeGreaterThan(MAX_TRIES * 100);
  });

  it('a gzip bomb is failed body_too_large, never retried after it, without inflating it', () => {
    const tries = server.tries('/gzip-bomb');
    expect(tries.length).toBeGreaterThanOrEqual(1);
    const row = expectFailed('/gzip-bomb', 'body_too_large', tries.length);
    expect(row.error).toContain(String(MAX_BODY));
    // Each try received the whole ~1 MB; it is the inflated size that is refused.
    expect(server.bytesWritten('/gzip-bomb')).toBeGreaterThan(tries.length * 1_000_000);
    // One try, unless the machine is so starved that an earlier try ran out of --timeout while its body came
    // or was inflated (the crawler then counts it a timeout, and its connection may stay open): the next try
    // then starts about a --timeout or more after it. Had a body_too_large try been retried, the retry would
    // follow it within a fraction of a --timeout (--retry-delay is 10 ms).
    tries.slice(0, -1).forEach((tried, i) => {
      expect(tries[i + 1]!.startedAt - tried.startedAt, 'an earlier try ran out of --timeout').toBeGreaterThan(TIMEOUT_MS - EARLY_MS);
    });
  });

  it('a corrupt gzip body is failed bad_encoding after every try, no page', () => {
    const row = expectFailed('/corrupt-gzip', 'bad_encoding');
    expect(row.error).toContain('gzip');
    expect(server.hitCount('/corrupt-gzip')).toBe(MAX_TRIES);
  });

  it('Content-Length shorter than the body: the declared bytes are the page, the rest is not', () => {
    expect(urlRow('/cl-shorter-than-body')).toMatchObject({ state: 'done', tries: 1, error_code: null });
    expect(page('/cl-shorter-than-body')?.body).toEqual(CL_SHORTER.body.subarray(0, CL_SHORTER.declared));
  });

  it('Content-Length longer than the body (then close): failed as cut off after every try, no page', () => {
    const row = expectFailed('/cl-longer-than-body', /^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(row.error).toMatch(/closed|reset/i);
    expect(server.hitCount('/cl-longer-than-body')).toBe(MAX_TRIES);
  });

  it('an invalid status line is failed with a recorded parser error, no page', () => {
    const row = expectFailed('/bad-status-line', /\S/);
    expect(row.error!.length).toBeGreaterThan(10);
    expect(server.hitCount('/bad-status-line')).toBe(MAX_TRIES);
  });

  it('10,000 response headers are failed headers_too_large on the first try, no page', () => {
    expectFailed('/many-headers', 'headers_too_large', 1);
  });

  it('a 3xx without Location is a done page with location NULL and no follow-up', () => {
    expect(urlRow('/redirect-no-location')).toMatchObject({ state: 'done', tries: 1, error_code: null });
    const stored = page('/redirect-no-location');
    expect(stored).toMatchObject({ status: 302, location: null });
    expect(linksFrom('/redirect-no-location')).toEqual([]);
    expect(server.hitCount('/from-302-body')).toBe(0);
  });

  it('a Location that is not a valid http(s) URL is failed bad_redirect, and only http(s) is ever fetched', () => {
    for (const [path, location] of Object.entries(BAD_REDIRECTS)) {
      const row = urlRow(path);
      expect(row, path).toMatchObject({ state: 'failed', tries: 1, error_code: 'bad_redirect' });
      expect(row!.error, path).toContain(JSON.stringify(location));
      expect(server.hitCount(path), path).toBe(1);
      expect(linksFrom(path), path).toEqual([]);
    }
    // No URL outside this server (and the refused port) was ever recorded, let alone fetched.
    const origins = readArchive<{ url: string }>(db, 'SELECT url FROM url').filter(
      ({ url }) => !url.startsWith(server.url) && !url.startsWith(new URL(server.refusedUrl).origin + '/'),
    );
    expect(origins.map(({ url }) => url.slice(0, 100))).toEqual([]);
    const [passwd] = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM body WHERE instr(data, CAST('root:' AS BLOB)) > 0");
    expect(passwd!.n).toBe(0);
    // Every request the server saw was an origin-form GET.
    for (const line of server.requestLines) expect(line).toMatch(/^GET \/\S* HTTP\/1\.1$/);
  });

  it('a 200 text/html of binary garbage is done and stored byte-exact', () => {
    expect(urlRow('/binary-html')).toMatchObject({ state: 'done', tries: 1, error_code: null });
    const stored = page('/binary-html');
    expect(stored?.status).toBe(200);
    expect(stored!.body.equals(BINARY_HTML)).toBe(true);
  });

  it('100,000 unclosed <div>s and broken tags: parsed, and the final link followed', () => {
    expect(urlRow('/nested')).toMatchObject({ state: 'done', tries: 1 });
    expect(linksFrom('/nested')).toContain(href(FOLLOW_UPS.nested));
    expect(urlRow(FOLLOW_UPS.nested)).toMatchObject({ state: 'done', tries: 1 });
    expect(server.hitCount(FOLLOW_UPS.nested)).toBe(1);
  });

  /** The crawler's default --max-links-per-page: links past it are not read (a trap guard). */
  const LINKS_READ = 10_000;

  it('a page with 100,000 links: the first 10,000 (--max-links-per-page) recorded, a bounded few fetched within --max-pages', () => {
    expect(urlRow('/many-links')).toMatchObject({ state: 'done', tries: 1 });
    const [links] = readArchive<{ n: number; distinct_n: number }>(
      db,
      "SELECT count(*) AS n, count(DISTINCT to_url) AS distinct_n FROM links WHERE from_url = ? AND to_url LIKE '%/l/%'",
      href('/many-links'),
    );
    expect(links).toEqual({ n: LINKS_READ, distinct_n: LINKS_READ });
    // The first ones in document order.
    const ends = readArchive<{ to_url: string }>(
      db,
      'SELECT to_url FROM links WHERE from_url = ? AND to_url IN (?, ?, ?)',
      href('/many-links'),
      href('/l/0'),
      href(`/l/${LINKS_READ - 1}`),
      href(`/l/${LINKS_READ}`),
    );
    expect(ends.map((row) => row.to_url).sort()).toEqual([href('/l/0'), href(`/l/${LINKS_READ - 1}`)].sort());
    const [rows] = readArchive<{ n: number; done: number; queued: number }>(
      db,
      "SELECT count(*) AS n, sum(state = 'done') AS done, sum(state = 'queued') AS queued FROM url WHERE url LIKE ?",
      `${server.url}l/%`,
    );
    expect(rows!.n).toBe(LINKS_READ);
    // Some were fetched (404s, done), the rest wait for a resume with a larger --max-pages.
    expect(rows!.done).toBeGreaterThan(0);
    expect(rows!.done + rows!.queued).toBe(LINKS_READ);
    const fetchedL = [...server.hits.keys()].filter((target) => target.startsWith('/l/'));
    expect(fetchedL.length).toBe(rows!.done);
    // --max-pages bounds the pages started (retries are not new pages; requisites are not pages).
    const [started] = readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM url WHERE tries > 0 AND kind = 'page'");
    expect(started!.n).toBeLessThanOrEqual(MAX_PAGES);
    expect(run.stderr).toContain('--max-pages');
  });

  it('a page with 100,000 links does not stall requests in flight past --timeout', () => {
    // The probe answers nothing; its first request was open while /many-links was received and processed.
    expect(server.probeOpenAtManyLinks, 'the probe was in flight when /many-links was sent').toBe(true);
    expectFailed(STALL_PROBE, 'timeout');
    const [first] = tryDurations(STALL_PROBE);
    expect(first, 'the first probe try, in flight while 100,000 links were processed, in ms').toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it('a link with a 100 KB URL is skipped url_too_long and never requested', () => {
    const row = urlRow(LONG_URL_PATH);
    expect(row).toMatchObject({ state: 'skipped', tries: 0, error_code: 'url_too_long' });
    expect(row!.error).toContain(String(href(LONG_URL_PATH).length));
    expect(server.hitCount(LONG_URL_PATH)).toBe(0);
    expect(server.maxTargetLength).toBeLessThan(9 * 1024);
  });

  it('invalid UTF-8 in a text/html page: stored byte-exact, still parsed, its link followed', () => {
    expect(urlRow('/bad-utf8')).toMatchObject({ state: 'done', tries: 1, error_code: null });
    const stored = page('/bad-utf8');
    expect(stored!.body.equals(BAD_UTF8_BODY)).toBe(true);
    expect(stored!.charset).toBe('utf-8');
    expect(linksFrom('/bad-utf8')).toContain(href(FOLLOW_UPS.badUtf8));
    expect(urlRow(FOLLOW_UPS.badUtf8)).toMatchObject({ state: 'done', tries: 1 });
    // The invalid byte in an href decodes to U+FFFD, which the URL carries percent-encoded.
    expect(linksFrom('/bad-utf8')).toContain(href('/bad-utf8-%EF%BF%BD'));
  });

  it('a charset label that does not exist: still parsed (as UTF-8), its link followed', () => {
    expect(urlRow('/bad-charset')).toMatchObject({ state: 'done', tries: 1, error_code: null });
    expect(page('/bad-charset')?.title).toBe(BAD_CHARSET_TITLE);
    expect(urlRow(FOLLOW_UPS.badCharset)).toMatchObject({ state: 'done', tries: 1 });
  });

  it('kept its memory flat and left an intact archive', () => {
    expect(rssSamples).toBeGreaterThan(5);
    expect(peakRssBytes).toBeGreaterThan(0);
    expect(peakRssBytes).toBeLessThan(PEAK_RSS_LIMIT_BYTES);
    const [check] = readArchive<{ integrity_check: string }>(db, 'PRAGMA integrity_check');
    expect(check!.integrity_check).toBe('ok');
    expect(readArchive(db, 'PRAGMA foreign_key_check')).toEqual([]);
    // Reported for the record.
    console.info(
      `hostile crawl: ${Math.round(crawlMs)} ms, peak RSS ${(peakRssBytes / 1024 / 1024).toFixed(1)} MiB over ${rssSamples} samples`,
    );
  });
});
