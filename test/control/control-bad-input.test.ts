import { copyFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { readArchive, tempDir, UNDO_SCHEMA_20 } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { control, startControlSite, type ControlSite } from '../support/control-site.js';
import { expectOneLine } from '../support/one-line-error.js';

// A request the crawl could never take is refused before anything is written: one line on stderr, exit 2.
// With no crawl running, a request waits for the next run and says so; a stop is not left waiting.

let site: ControlSite;
const tmp = tempDir();
const db = tmp.path('done.sqlite');
const requests = (path = db) => readArchive<{ n: number }>(path, 'SELECT count(*) AS n FROM control_request')[0]!.n;

beforeAll(async () => {
  site = await startControlSite({ pages: 2, delayMs: 0 });
  expect((await execCli(['crawl', site.url, '--db', db, '-q', '--ignore-robots'])).code).toBe(0);
});
afterAll(async () => {
  await site?.close();
  tmp.cleanup();
});

describe('control refuses what a crawl could never take', () => {
  const cases: [string[], RegExp][] = [
    [['exclude', '(unclosed'], /^crawlite: exclude "\(unclosed" is not a valid regular expression; nothing was asked of the crawl$/],
    [['include', '[z-a]'], /^crawlite: include "\[z-a\]" is not a valid regular expression/],
    [['set', '--concurrency', '0'], /^crawlite: --concurrency must be a whole number from 1 to 1000, got 0; nothing was asked/],
    [['set', '--per-host', '1.5'], /^crawlite: --per-host must be a whole number from 1 to 1000, got 1.5/],
    [['set', '--delay', '-1'], /^crawlite: --delay must be a whole number of ms from 0 to 86400000, got -1/],
    [['set', '--min-free-disk', 'lots'], /^crawlite: --min-free-disk must be a whole number of bytes from 0 to \d+, got NaN/],
  ];
  for (const [args, message] of cases) {
    it(`control ${args.join(' ')}`, async () => {
      const result = await control(db, ...args);
      expectOneLine(result, message, 2);
      expect(requests()).toBe(0);
    });
  }

  it('a command without what it needs is a usage error', async () => {
    const cases: [string[], RegExp][] = [
      [['set'], /^crawlite: control set needs --concurrency, --per-host, --delay or --min-free-disk \(see crawlite --help\)$/],
      [['exclude'], /^crawlite: control exclude needs a PATTERN \(a regular expression\) \(see crawlite --help\)$/],
      [['pause', 'x'], /^crawlite: control pause takes no pattern \(see crawlite --help\)$/],
      [['frobnicate'], /^crawlite: Invalid values: Argument: action, Given: "frobnicate"/],
    ];
    for (const [args, message] of cases) expectOneLine(await control(db, ...args), message);
    expect(requests()).toBe(0);
  });

  it('a file that is no archive, or was last crawled by an older crawlite, is said so', async () => {
    const text = tmp.path('text.sqlite');
    writeFileSync(text, 'not sqlite');
    expectOneLine(await control(text, 'pause'), /is not a crawlite archive/);
    expectOneLine(await control(tmp.path('missing.sqlite'), 'status'), /no such archive/);
    const older = tmp.path('older.sqlite');
    copyFileSync(db, older);
    const handle = new Database(older);
    handle.exec(UNDO_SCHEMA_20);
    handle.close();
    expectOneLine(
      await control(older, 'pause'),
      /was last crawled by an older crawlite: crawlite resume .* with this version, then control it$/,
    );
  });
});

describe('with no crawl running', () => {
  it('a request waits for the next run, and says so; a stop is not left waiting', async () => {
    const copy = tmp.path('copy.sqlite');
    copyFileSync(db, copy);
    expect(await control(copy, 'stop')).toMatchObject({ code: 0, stdout: `no crawl is running on ${copy}: nothing to stop\n` });
    expect(requests(copy)).toBe(0);
    expect(await control(copy, 'set', '--delay', '250')).toMatchObject({
      code: 0,
      stdout: `no crawl is running on ${copy}: the request applies when it next runs (crawlite resume ${copy})\n`,
    });
    const status = JSON.parse((await control(copy, 'status', '--json')).stdout) as {
      running: boolean;
      requests: { command: string; appliedAt: string | null }[];
    };
    expect(status).toMatchObject({ running: false, requests: [{ command: 'set', appliedAt: null }] });
  });
});
