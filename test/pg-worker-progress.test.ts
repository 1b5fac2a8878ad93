import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, runCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';

// A worker on a terminal draws the line `crawl` draws, with the whole crawl's counts from the frontier.
noticeIfMissing('pg-worker-progress');

const PAGES = 100;
/** URLs other workers finished before this one started: the line's "done" and "failed" count them too. */
const DONE_ELSEWHERE = 1_000;
const FAILED_ELSEWHERE = 7;

describe.skipIf(!POSTGRES_INSTALLED)("a worker's progress line", () => {
  const pg = useCluster();
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    site = await startLinkedSite(PAGES, 20);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it("shows done, queued and failed over all workers, and this worker's in flight, fetched and rate, live on a terminal", async () => {
    expect((await execCli(['frontier', 'init', pg.url, '--roots', site.url])).code).toBe(0);
    await pg.query(
      "INSERT INTO url (url, origin, kind, state, depth) SELECT 'http://done.invalid/' || i, 'http://done.invalid', 'page', 'done', 1 FROM generate_series(1, $1) AS i",
      [DONE_ELSEWHERE],
    );
    await pg.query(
      "INSERT INTO url (url, origin, kind, state, depth) SELECT 'http://failed.invalid/' || i, 'http://failed.invalid', 'page', 'failed', 1 FROM generate_series(1, $1) AS i",
      [FAILED_ELSEWHERE],
    );
    const writes: string[] = [];
    const result = await runCli(['worker', pg.url, '--db', tmp.path('shard.sqlite'), '-c', '2'], {
      statusStream: { write: (text) => writes.push(text), columns: 200 },
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = writes
      .map((text) => /(\d+) done, (\d+) queued, (\d+) in flight, (\d+) failed \| (\d+) fetched, [\d.]+\/s/.exec(text))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ done: Number(match[1]), inFlight: Number(match[3]), failed: Number(match[4]), fetched: Number(match[5]) }));
    expect(lines.length).toBeGreaterThan(1);
    // The frontier's counts: what other workers finished, as well as this one.
    expect(
      lines.every((line) => line.done >= DONE_ELSEWHERE && line.failed >= FAILED_ELSEWHERE),
      JSON.stringify(lines),
    ).toBe(true);
    expect(lines.at(-1)!.done).toBeGreaterThan(DONE_ELSEWHERE);
    expect(lines.every((line) => line.inFlight <= 2)).toBe(true);
    expect(lines.at(-1)!.fetched).toBeGreaterThan(0);
    expect(writes.some((text) => text.includes('\u001b[2K'))).toBe(true);
    expect(result.stderr).toMatch(/shard\.sqlite: \d+ URLs finished by this worker\n$/);
  });
});
