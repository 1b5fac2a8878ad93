import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { control, crawlProcesses, controlSettings, liveRow, startControlSite, type ControlSite } from '../support/control-site.js';
import { waitFor, within } from '../support/wait.js';

// `control set` changes a running crawl's concurrency and per-host cap: raised, more requests start at
// once; lowered, what is in flight above the new cap finishes and nothing starts until under it. The
// settings are kept for the next run, unless that run's command line gives the option (it wins, and the
// stored setting goes).

let site: ControlSite;
const tmp = tempDir();
const start = crawlProcesses();

beforeAll(async () => {
  site = await startControlSite({ pages: 150, delayMs: 200 });
});
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

it('raises and lowers the caps of a running crawl, and keeps them for the next run unless it is given its own', async () => {
  const db = tmp.path('pace.sqlite');
  const crawl = start(['crawl', site.url, '--db', db, '-c', '1', '--ignore-robots']);
  await waitFor(
    'the crawl to fetch a few pages',
    () => site.log.length >= 3,
    20_000,
    () => crawl.output().stderr,
  );
  expect(Math.max(...site.inFlightAtStart)).toBe(1);

  expect(await control(db, 'set', '--concurrency', '6', '--per-host', '6')).toMatchObject({
    code: 0,
    stdout: 'set concurrency 6, per-host 6\n',
  });
  await waitFor('more requests in flight at once', () => site.inFlight >= 4, 20_000);
  await waitFor('the live row to show the new caps', () => liveRow(db)?.concurrency === 6 && liveRow(db)?.per_host === 6);

  expect(await control(db, 'set', '--concurrency', '1')).toMatchObject({ code: 0, stdout: 'set concurrency 1\n' });
  // per-host stays 6, so the cap is the concurrency's: what is in flight above it drains, then one at a time.
  await waitFor('the requests above the new cap to finish', () => site.inFlight <= 1, 20_000);
  const from = site.log.length;
  await waitFor('more pages at the new cap', () => site.log.length >= from + 5, 20_000);
  expect(Math.max(...site.inFlightAtStart.slice(from))).toBe(1);
  expect(controlSettings(db)).toMatchObject({ concurrency: '1', per_host: '6' });

  expect(await control(db, 'stop')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^stopping/) });
  expect((await within(crawl.exited, 20_000, 'the stopped crawl')).code).toBe(130);

  // The next run starts with the stored settings...
  const next = start(['resume', db]);
  await waitFor('the next run to be seen', () => readPid(db) === next.pid, 20_000);
  expect(liveRow(db)).toMatchObject({ concurrency: 1, per_host: 6 });
  next.kill('SIGKILL');
  await next.exited;

  // ...unless its command line gives one: it wins, and is stored with the options instead.
  const given = start(['resume', db, '-c', '3']);
  await waitFor('the run given -c 3 to be seen', () => readPid(db) === given.pid, 20_000);
  expect(liveRow(db)).toMatchObject({ concurrency: 3, per_host: 6 });
  expect(controlSettings(db)).not.toHaveProperty('concurrency');
  given.kill('SIGKILL');
  await given.exited;
});

function readPid(db: string): number | undefined {
  try {
    return liveRow(db)?.pid;
  } catch {
    return undefined;
  }
}
