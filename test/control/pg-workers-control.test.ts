import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli, spawnCli } from '../support/cli.js';
import { control, startControlSite, type ControlSite } from '../support/control-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from '../support/postgres.js';
import { killAll } from '../support/process-tree.js';
import { sleep, waitFor, waitForAsync, within } from '../support/wait.js';

noticeIfMissing('pg-workers-control');

// Two workers share a PostgreSQL frontier; `crawlite control postgres://...` pauses them both (their requests
// in flight finish, nothing new starts), excludes a trap from the shared queue once, in one transaction,
// and resumes them: none of the excluded URLs is requested after the exclusion was applied.

const PAGES = 12;
const TRAP = 10;
const WORKER_TEST_MS = 240_000;

describe.skipIf(!POSTGRES_INSTALLED)('control of workers sharing a PostgreSQL frontier', { timeout: WORKER_TEST_MS }, () => {
  const pg = useCluster();
  let site: ControlSite;
  const tmp = tempDir();
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    site = await startControlSite({ pages: PAGES, trap: TRAP, delayMs: 100 });
  });
  afterEach(() => killAll(children));
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  const count = async (where: string) => Number((await pg.query<{ n: string }>(`SELECT count(*) AS n FROM url WHERE ${where}`))[0]!.n);

  it('pauses both workers, prunes the shared queue once, and resumes them', async () => {
    expect((await execCli(['frontier', 'init', pg.url, '--roots', site.url, '--ignore-robots'])).code).toBe(0);
    const workers = [1, 2].map((n) => spawnCli(['worker', pg.url, '--db', tmp.path(`shard-${n}.sqlite`), '-c', '2', '--name', `w${n}`]));
    children.push(...workers);
    await waitForAsync(
      'trap URLs in the shared queue',
      async () => (await count("state = 'queued' AND url LIKE '%/doc?id=%'")) >= 2 * TRAP,
      60_000,
    );

    const paused = await control(pg.url, 'pause');
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toBe('paused: every worker pauses within a few seconds\n');
    await waitFor(
      'both workers to say they paused',
      () => workers.every((worker) => worker.output().stderr.includes('paused by crawlite control')),
      20_000,
    );
    await waitFor('their requests in flight to finish', () => site.inFlight === 0, 20_000);
    const requested = site.log.length;
    // Two polls of each worker later, still nothing.
    await sleep(1_200);
    expect(site.log.length).toBe(requested);

    const excluded = await control(pg.url, 'exclude', '/doc\\?id=');
    expect(excluded.code, excluded.stderr).toBe(0);
    const pruned = Number(/^excluded: (\d+) queued URLs skipped\n$/.exec(excluded.stdout)?.[1]);
    expect(pruned).toBeGreaterThanOrEqual(2 * TRAP);
    expect(await count("state = 'queued' AND url LIKE '%/doc?id=%'")).toBe(0);
    const afterExclude = site.log.length;

    expect(await control(pg.url, 'resume')).toMatchObject({ code: 0, stdout: 'running: every worker goes on within a few seconds\n' });
    for (const worker of workers) expect((await within(worker.exited, 60_000, () => `a worker (${worker.output().stderr})`)).code).toBe(0);
    expect(site.log.slice(afterExclude).filter((path) => path.startsWith('/doc?'))).toEqual([]);
    const trapRequested = site.log.filter((path) => path.startsWith('/doc?')).length;
    expect(await count("state = 'skipped' AND error_code = 'excluded_live' AND error = 'matches live exclusion /doc\\?id='")).toBe(
      PAGES * TRAP - trapRequested,
    );
    expect(await count("state IN ('queued', 'leased')")).toBe(0);
  });
});
