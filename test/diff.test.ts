import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlChanges } from '../src/storage/reader/crawl-changes.js';
import { readArchive, tempDir, UNDO_SCHEMA_7 } from './support/archive.js';
import { execCli } from './support/cli.js';
import { makeHistoryArchive, type HistoryArchive } from './support/history-site.js';
import { expectOneLine } from './support/one-line-error.js';

// `crawlite diff`: what changed between two crawls (the `changes` view's logic
// for any two crawls), and a unified diff of one page's text.

const tmp = tempDir();
const db = tmp.path('site.sqlite');
let site: HistoryArchive;
const changesView = () => readArchive(db, 'SELECT * FROM changes ORDER BY url');

beforeAll(async () => {
  site = await makeHistoryArchive(db, changesView);
});

afterAll(() => tmp.cleanup());

const rowsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const byPath = (rows: Array<Record<string, unknown>>) =>
  Object.fromEntries(rows.map((row) => [new URL(String(row.url)).pathname, row.change]));

describe('crawlite diff between crawls', () => {
  it('agrees with the changes view for the crawls the view compares', () => {
    const archive = new Database(db, { readonly: true });
    try {
      expect(crawlChanges(archive, 1, 2)).toEqual(site.changesAfterCrawl2);
      expect(crawlChanges(archive, 2, 3)).toEqual(changesView());
    } finally {
      archive.close();
    }
  });

  it('lists each URL with its change between the crawl before and the latest by default (--all: the unchanged too)', async () => {
    const run = await execCli(['diff', db, '--all', '-f', 'ndjson']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = rowsOf(run.stdout);
    expect(Object.entries(byPath(rows)).filter(([, change]) => change !== 'unchanged')).toEqual([['/a', 'changed']]);
    expect(rows).toHaveLength(9);
  });

  it('compares any two crawls with --from and --to: every kind of change', async () => {
    const run = await execCli(['diff', db, '--from', '1', '--to', '2', '--all', '-f', 'ndjson']);
    expect(run.code).toBe(0);
    expect(byPath(rowsOf(run.stdout))).toEqual({
      '/': 'unchanged',
      '/a': 'changed',
      '/b': 'unchanged',
      '/c': 'unchanged',
      '/d': 'gone',
      '/f': 'gone',
      '/n': 'new',
      '/r': 'redirected',
      '/robots.txt': 'unchanged',
      '/t.txt': 'changed',
    });
  });

  it('prints the counts by kind, then the URLs, as a table', async () => {
    const run = await execCli(['diff', db, '--from', '1', '--to', '2', '--all']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^crawl 1 -> crawl 2\n/);
    const counts = Object.fromEntries(
      [...run.stdout.matchAll(/^(new|changed|unchanged|redirected|gone) +(\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(counts).toEqual({ new: 1, changed: 2, unchanged: 4, redirected: 1, gone: 2 });
    expect(run.stdout).toMatch(new RegExp(`^${site.origin}/d +gone +200 +404`, 'm'));
    expect(run.stdout).toContain('(10 rows)');
  });

  it('writes CSV with a header', async () => {
    const run = await execCli(['diff', db, '--from', '1', '--to', '3', '-f', 'csv']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\r\n')[0]).toBe('url,change,from_status,to_status,from_fetched_at,to_fetched_at');
    expect(run.stdout).toContain(`${site.origin}/a,changed,200,200,`);
  });

  it('refuses crawl numbers the archive does not hold, in one line', async () => {
    expectOneLine(await execCli(['diff', db, '--to', '9']), /--to 9: no such crawl; .* holds crawls 1, 2, 3/);
    expectOneLine(await execCli(['diff', db, '--from', '0']), /--from must be a crawl number/);
    expectOneLine(await execCli(['diff', db, '--from', 'x']), /--from must be a crawl number/);
    expectOneLine(await execCli(['diff', db, '--to', '1']), /no crawl before crawl 1/);
  });

  it('refuses an archive from before captures were kept, in one line', async () => {
    const old = tmp.path('old.sqlite');
    const copy = new Database(db, { readonly: true });
    await copy.backup(old);
    copy.close();
    const writable = new Database(old);
    writable.exec('DELETE FROM capture');
    writable.exec(UNDO_SCHEMA_7);
    writable.close();
    expectOneLine(await execCli(['diff', old]), /made by an older crawlite/);
  });
});

describe('crawlite diff --url', () => {
  it("shows a unified diff of an HTML page's extracted text", async () => {
    const run = await execCli(['diff', db, '--url', `${site.origin}/a`, '--from', '1', '--to', '2']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`--- ${site.origin}/a\tcrawl 1, `);
    expect(run.stdout).toContain(`+++ ${site.origin}/a\tcrawl 2, 2030-01-02T00:00:00.000Z, status 200`);
    expect(run.stdout).toMatch(/^-We sell apples\.$/m);
    expect(run.stdout).toMatch(/^\+We sell pears\.$/m);
    expect(run.stdout).toMatch(/^ Open daily\.$/m);
    // Text, not markup.
    expect(run.stdout).not.toContain('<p>');
  });

  it('compares the latest crawl with the one before by default, headings included', async () => {
    const run = await execCli(['diff', db, '--url', `${site.origin}/a`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^-About$/m);
    expect(run.stdout).toMatch(/^\+About us$/m);
    expect(run.stdout).toMatch(/^\+Closed on Sundays\.$/m);
  });

  it('diffs a body that is not HTML as text', async () => {
    const run = await execCli(['diff', db, '--url', `${site.origin}/t.txt`, '--from', '1', '--to', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^-line two$/m);
    expect(run.stdout).toMatch(/^\+line 2$/m);
  });

  it('says so when the text is the same (a 304 included)', async () => {
    const run = await execCli(['diff', db, '--url', `${site.origin}/b`, '--from', '1', '--to', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${site.origin}/b: the text is the same in crawl 1 and crawl 2\n`);
  });

  it('finds the URL as typed, unnormalised', async () => {
    const run = await execCli(['diff', db, '--url', `${site.origin.toUpperCase().replace('HTTP', 'http')}/c`, '--from', '1', '--to', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the text is the same');
  });

  it('refuses a URL not in the archive, or not captured in a crawl, in one line', async () => {
    expectOneLine(await execCli(['diff', db, '--url', `${site.origin}/nowhere`]), /\/nowhere is not in the archive/);
    expectOneLine(await execCli(['diff', db, '--url', `${site.origin}/f`, '--from', '1', '--to', '2']), /\/f was not captured in crawl 2/);
    expectOneLine(await execCli(['diff', db, '--url', `${site.origin}/n`, '--from', '1', '--to', '2']), /\/n was not captured in crawl 1/);
  });
});
