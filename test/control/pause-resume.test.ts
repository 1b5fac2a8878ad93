import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { control, crawlProcesses, liveRow, startControlSite, urlCount, type ControlSite } from '../support/control-site.js';
import { waitFor, within } from '../support/wait.js';

// A crawl paused from a second process lets its requests in flight finish and starts nothing, but stays;
// killed with SIGKILL while paused, its resume says it is paused and waits; `control resume` lets it finish.

const PAGES = 40;
let site: ControlSite;
const tmp = tempDir();
const start = crawlProcesses();

beforeAll(async () => {
  site = await startControlSite({ pages: PAGES, delayMs: 150 });
});
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

interface StatusJson {
  running: boolean;
  live?: { pid: number; state: string; pausedBy: string | null };
}
const status = async (db: string) => JSON.parse((await control(db, 'status', '--json')).stdout) as StatusJson;

it('pauses a running crawl without ending it, keeps it paused across kill -9, and resumes it', async () => {
  const db = tmp.path('paused.sqlite');
  const crawl = start(['crawl', site.url, '--db', db, '-c', '2', '--ignore-robots']);
  await waitFor(
    'the crawl to fetch a few pages',
    () => site.log.length >= 5,
    20_000,
    () => crawl.output().stderr,
  );

  const paused = await control(db, 'pause');
  expect(paused).toMatchObject({ code: 0, stdout: 'paused\n', stderr: '' });
  // What was in flight finishes and commits; then nothing starts.
  await waitFor(
    'requests in flight to finish and their pages to be stored',
    () => liveRow(db)?.state === 'paused' && site.inFlight === 0 && urlCount(db, 'done') === new Set(site.log).size,
  );
  const requested = site.log.length;
  for (let i = 0; i < 3; i += 1) {
    expect(await status(db)).toMatchObject({ running: true, live: { pid: crawl.pid, state: 'paused', pausedBy: 'control' } });
  }
  expect(site.log.length).toBe(requested);
  expect(crawl.exitCode).toBeNull();
  expect(readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM url WHERE state = 'queued'")[0]!.n).toBeGreaterThan(0);

  crawl.kill('SIGKILL');
  await crawl.exited;
  const resumed = start(['resume', db]);
  await waitFor('the resume to say it is paused', () => resumed.output().stderr.includes(`paused: crawlite control ${db} resume to go on`));
  await waitFor(
    'the resumed crawl to run, paused',
    () => liveRow(db)?.state === 'paused' && readArchive<{ pid: number }>(db, 'SELECT pid FROM crawl_live')[0]?.pid === resumed.pid,
  );
  expect(await status(db)).toMatchObject({ running: true, live: { pid: resumed.pid, state: 'paused' } });
  expect(site.log.length).toBe(requested);

  expect(await control(db, 'resume')).toMatchObject({ code: 0, stdout: 'running\n' });
  const end = await within(resumed.exited, 40_000, () => `the resumed crawl (${resumed.output().stderr})`);
  expect(end.code).toBe(0);
  expect(end.stderr).toContain('resumed');
  expect(liveRow(db)?.state).toBe('ended');
  expect(readArchive<{ n: number }>(db, "SELECT count(*) AS n FROM url WHERE state = 'done'")[0]!.n).toBe(PAGES + 1);
  expect((await status(db)).running).toBe(false);
});
