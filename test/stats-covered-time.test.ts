import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alteredCopy } from './support/altered-archive.js';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// The time stats reports is the time the runs covered: workers running side by side are not added together.
let server: TestServer;
const tmp = tempDir();
let crawled: string;

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/a">a</a>'), '/a': html('a') }));
  crawled = tmp.path('crawled.sqlite');
  const result = await runCli(['crawl', server.url, '--db', crawled, '--ignore-robots', '-q']);
  if (result.code !== 0) throw new Error(result.stderr);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();

/** The crawl's archive with its runs replaced by these [start, end] intervals, in seconds. */
function withRuns(name: string, runs: [number, number][]): string {
  return alteredCopy(crawled, tmp.path(name), (db) => {
    const [first, ...others] = runs;
    db.prepare('UPDATE run SET started_at = ?, ended_at = ?').run(at(first![0]), at(first![1]));
    const insert = db.prepare("INSERT INTO run (started_at, ended_at, ended_by, options) VALUES (?, ?, 'finished', '{}')");
    for (const [start, end] of others) insert.run(at(start), at(end));
  });
}

async function statsOf(db: string): Promise<{ elapsedMs: number; runs: number; responsesPerSecond: number; fetched: number }> {
  const result = await runCli(['stats', db, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('stats of an archive with several runs', () => {
  it('counts overlapping runs (two merged workers) once: their union, not their sum', async () => {
    const stats = await statsOf(
      withRuns('overlap.sqlite', [
        [0, 16.6],
        [6.8, 16.6],
      ]),
    );
    expect(stats.runs).toBe(2);
    expect(stats.elapsedMs).toBe(16_600);
    expect(stats.responsesPerSecond).toBe(Math.round((stats.fetched / 16.6) * 10) / 10);
    const text = await runCli([
      'stats',
      withRuns('overlap-text.sqlite', [
        [0, 16.6],
        [6.8, 16.6],
      ]),
    ]);
    expect(text.stdout).toMatch(/^Time\s+16\.6 s /m);
  });

  it('leaves out the time between runs that did not overlap', async () => {
    const stats = await statsOf(
      withRuns('gap.sqlite', [
        [0, 10],
        [5, 12],
        [100, 110],
      ]),
    );
    expect(stats.runs).toBe(3);
    expect(stats.elapsedMs).toBe(22_000);
  });

  it('a run inside another adds nothing', async () => {
    expect(
      (
        await statsOf(
          withRuns('inside.sqlite', [
            [0, 30],
            [10, 20],
          ]),
        )
      ).elapsedMs,
    ).toBe(30_000);
  });
});
