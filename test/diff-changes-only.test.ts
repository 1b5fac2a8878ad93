import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { linksPage, startServer, type TestServer } from './support/test-server.js';

// `crawlite diff` lists what changed, whatever the format; the unchanged
// URLs (most of a re-crawl) only with --all. The table's counts cover all.

const SAME = ['/s1', '/s2', '/s3', '/s4', '/s5', '/s6'];

function answer(path: string, version: number): Served | undefined {
  if (path === '/') return { body: linksPage([...SAME, '/edit', '/drop', '/moved', ...(version === 2 ? ['/fresh'] : [])]) };
  if (SAME.includes(path)) return { body: linksPage([]), etag: `"${path}"` };
  if (path === '/edit') return { body: version === 1 ? '<p>before</p>' : '<p>after</p>' };
  if (path === '/drop') return version === 1 ? { body: '<p>here</p>' } : undefined;
  if (path === '/moved') return version === 1 ? { body: '<p>here</p>' } : { status: 301, body: '', location: '/fresh' };
  if (path === '/fresh') return { body: '<p>fresh</p>' };
  return undefined;
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
// The index links /fresh now: it changed too.
const CHANGES = { '/': 'changed', '/drop': 'gone', '/edit': 'changed', '/fresh': 'new', '/moved': 'redirected' };

beforeAll(async () => {
  server = await startServer(site.handle);
  const crawled = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  site.version = 2;
  const recrawled = await execCli(['recrawl', db, '-q']);
  expect(recrawled.code, recrawled.stderr).toBe(0);
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const path = (url: unknown) => new URL(String(url)).pathname;
const byPath = (rows: Array<Record<string, unknown>>) => Object.fromEntries(rows.map((row) => [path(row.url), row.change]));
const ndjson = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const csv = (stdout: string) =>
  stdout
    .trim()
    .split('\r\n')
    .slice(1)
    .map((line) => ({ url: line.split(',')[0], change: line.split(',')[1] }));

async function diff(...flags: string[]): Promise<string> {
  const run = await execCli(['diff', db, ...flags]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

describe('crawlite diff lists the changes', () => {
  it('as a table: the counts of every kind, then the changed URLs only', async () => {
    const out = await diff();
    const counts = Object.fromEntries(
      [...out.matchAll(/^(new|changed|unchanged|redirected|gone) +(\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(counts).toEqual({ new: 1, changed: 2, unchanged: 7, redirected: 1, gone: 1 });
    const listed = [...out.matchAll(/^(http\S+) +(\w+)/gm)].map((m) => [path(m[1]), m[2]]);
    expect(Object.fromEntries(listed)).toEqual(CHANGES);
    expect(out).toContain('(5 rows)');
    expect(out).toMatch(/--all/);
  });

  it('as ndjson, json and csv: the changed URLs only', async () => {
    expect(byPath(ndjson(await diff('-f', 'ndjson')))).toEqual(CHANGES);
    expect(byPath(JSON.parse(await diff('-f', 'json')) as Array<Record<string, unknown>>)).toEqual(CHANGES);
    expect(byPath(csv(await diff('-f', 'csv')))).toEqual(CHANGES);
  });

  it('with --all: every URL, the unchanged too, in every format', async () => {
    const all = { ...CHANGES, '/robots.txt': 'unchanged', ...Object.fromEntries(SAME.map((p) => [p, 'unchanged'])) };
    expect(byPath(ndjson(await diff('--all', '-f', 'ndjson')))).toEqual(all);
    expect(byPath(JSON.parse(await diff('--all', '-f', 'json')) as Array<Record<string, unknown>>)).toEqual(all);
    expect(byPath(csv(await diff('--all', '-f', 'csv')))).toEqual(all);
    const table = await diff('--all');
    expect(table).toContain('(12 rows)');
    expect(table).toMatch(new RegExp(`^${server.url}s1 +unchanged`, 'm'));
  });
});
