import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProgressDisplay } from '../src/cli/progress-display.js';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  const pages = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`/p${i}`, { ...html(`<a href="/p${(i + 1) % 30}">n</a> <a href="/gone">x</a>`), delayMs: 10 }]),
  );
  server = await startServer(routes({ '/': html('<a href="/p0">start</a> <a href="/down">down</a>'), '/down': { status: 503 }, ...pages }));
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('--log FILE', () => {
  it('writes one JSON line per fetch that matches what the archive holds', async () => {
    const db = tmp.path('log.sqlite');
    const logPath = tmp.path('fetches.jsonl');
    const result = await runCli(['crawl', server.url, '--db', db, '-q', '--log', logPath, '--max-tries', '2', '--retry-delay', '1']);
    expect(result.code).toBe(0);
    const lines = readFileSync(logPath, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const pages = readArchive<{ url: string; status: number; size: number }>(
      db,
      'SELECT fetch_url AS url, status, size FROM pages ORDER BY url',
    );
    expect(lines).toHaveLength(pages.length);
    const logged = lines
      .map((line) => ({ url: line.url, status: line.status, size: line.bytes }))
      .sort((a, b) => String(a.url).localeCompare(String(b.url)));
    expect(logged).toEqual(pages);
    for (const line of lines) {
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          ms: expect.any(Number),
          links: expect.any(Number),
          new_links: expect.any(Number),
          tries: expect.any(Number),
        }),
      );
    }
    const down = lines.find((line) => String(line.url).endsWith('/down'));
    expect(down).toMatchObject({ state: 'failed', status: 503, tries: 2, error: expect.stringContaining('http_503') });
    const root = lines.find((line) => line.url === server.url);
    expect(root).toMatchObject({ links: 2, new_links: 2 });
  });

  it('refuses a log path it cannot write, before touching the archive', async () => {
    const db = tmp.path('never.sqlite');
    const result = await runCli(['crawl', server.url, '--db', db, '--log', tmp.path('missing/dir/log.jsonl')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^crawlite: cannot write the log .*missing\/dir\/log\.jsonl/);
    expect(() => readFileSync(db)).toThrow();
  });
});

describe('progress', () => {
  it('draws a live status line on a terminal, and clears it at the end', async () => {
    const writes: string[] = [];
    const terminal = { write: (text: string) => writes.push(text), columns: 200 };
    const result = await runCli(['crawl', server.url, '--db', tmp.path('live.sqlite'), '--ignore-robots', '--max-tries', '1'], {
      statusStream: terminal,
    });
    expect(result.code).toBe(0);
    const statuses = writes.filter((text) => /\d+ done, \d+ queued, \d+ in flight, \d+ failed \| \d+ fetched, [\d.]+\/s/.test(text));
    expect(statuses.length).toBeGreaterThan(0);
    // log-update redraws in place: each redraw erases the previous line with an escape sequence.
    expect(writes.some((text) => text.includes('\u001b[2K'))).toBe(true);
  });

  it('prints a plain line every 10 s when not on a terminal', () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      let now = 0;
      const display = new ProgressDisplay(
        'plain',
        { write: (text) => lines.push(text) },
        () => ({ queued: 5, fetching: 2, done: 40, failed: 1 }),
        () => 3,
        () => now,
      );
      display.start();
      display.count({ url: 'http://a/', state: 'done', tries: 1, size: 2048, linksFound: 0, linksNew: 0 });
      now = 9_000;
      vi.advanceTimersByTime(9_000);
      expect(lines).toEqual([]);
      now = 10_000;
      vi.advanceTimersByTime(1_000);
      // The count was taken at the first line, after the fetch was committed: it holds that fetch already.
      expect(lines).toEqual(['40 done, 5 queued, 3 in flight, 1 failed | 1 fetched, 0.1/s, 2.0 KiB | 10 s\n']);
      display.stop();
      vi.advanceTimersByTime(20_000);
      expect(lines).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts URLs by state only as often as that is cheap, whatever the redraw rate', async () => {
    let now = 0;
    let counts = 0;
    // Each count takes 200 ms, as on an archive with a frontier of millions.
    const slowCounts = () => ((counts += 1), (now += 200), { queued: counts, fetching: 0, done: 0, failed: 0 });
    const display = await ProgressDisplay.create(
      'live',
      { write: () => true, columns: 200 },
      slowCounts,
      () => 0,
      () => now,
    );
    vi.useFakeTimers();
    try {
      display.start();
      for (let tick = 0; tick < 40; tick += 1) {
        now += 250;
        vi.advanceTimersByTime(250);
      }
      display.stop();
      // 40 redraws over about 18 s; at most one count per 4 s (20 times its cost).
      expect(counts).toBeGreaterThanOrEqual(2);
      expect(counts).toBeLessThanOrEqual(6);
    } finally {
      vi.useRealTimers();
    }
  });

  it('moves "done" and "failed" with "fetched", without waiting for the next count of the archive', () => {
    let now = 0;
    const archive = { queued: 10, fetching: 8, done: 100, failed: 3 };
    const display = new ProgressDisplay(
      'plain',
      { write: () => true },
      () => ({ ...archive }),
      () => 2,
      () => now,
    );
    expect(display.status()).toBe('100 done, 10 queued, 2 in flight, 3 failed | 0 fetched, 0.0/s, 0 B | 0 s');
    // Two fetches commit (the archive's count would now say so) and are reported within the same second.
    archive.done += 1;
    archive.failed += 1;
    display.count({ url: 'http://a/1', state: 'done', tries: 1, size: 0, linksFound: 0, linksNew: 0 });
    display.count({ url: 'http://a/2', state: 'failed', tries: 1, linksFound: 0, linksNew: 0 });
    display.count({ url: 'http://a/3', state: 'skipped', tries: 0, linksFound: 0, linksNew: 0 });
    now = 500;
    expect(display.status()).toMatch(/^101 done, 10 queued, 2 in flight, 4 failed \| 2 fetched,/);
    // The next count agrees, and nothing is counted twice.
    now = 2_000;
    expect(display.status()).toMatch(/^101 done, 10 queued, 2 in flight, 4 failed \| 2 fetched,/);
  });

  it('shows requests in flight, never more than -c, not the URLs claimed ahead', async () => {
    const slow = await startServer(
      routes({
        '/': html(Array.from({ length: 12 }, (_, i) => `<a href="/s${i}">s</a>`).join(' ')),
        ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`/s${i}`, { ...html('slow'), delayMs: 150 }])),
      }),
    );
    try {
      const writes: string[] = [];
      const terminal = { write: (text: string) => writes.push(text), columns: 200 };
      const result = await runCli(['crawl', slow.url, '--db', tmp.path('in-flight.sqlite'), '--ignore-robots', '-c', '2'], {
        statusStream: terminal,
      });
      expect(result.code).toBe(0);
      const inFlight = writes.flatMap((text) => [...text.matchAll(/(\d+) in flight/g)].map((match) => Number(match[1])));
      expect(inFlight.length).toBeGreaterThan(1);
      expect(Math.max(...inFlight)).toBeLessThanOrEqual(2);
      expect(inFlight).toContain(2);
    } finally {
      await slow.close();
    }
  });

  it('prints nothing but errors with -q', async () => {
    const result = await runCli(['crawl', server.url, '--db', tmp.path('quiet.sqlite'), '-q', '--max-tries', '1']);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});
