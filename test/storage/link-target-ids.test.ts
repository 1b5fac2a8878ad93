import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_KIND_CODE } from '../../src/storage/archive/link-kind-codes.js';
import { latestSchemaVersion, loadMigrations } from '../../src/storage/archive/migrate.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { readArchive, tempDir, UNDO_SCHEMA_17 } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { doc, routes, startServer, type TestServer } from '../support/test-server.js';
import { within } from '../support/wait.js';

/*
 * The link table names a target by its url row's id, and spells the URL out only for a target without
 * one (a canonical, a refresh past the redirect budget, a link out of scope is `skipped` and so has a
 * row): the `links` view reads as it did when every row spelled its target out.
 */

// Long paths, so that spelling them out in every link row would show in the table's size.
const LONG = '/section/with/a/rather/long/path/as/documentation/sites/have';
const PAGES = Array.from({ length: 40 }, (_, i) => `${LONG}/page-${i}.html`);
const OUTSIDE = 'http://elsewhere.invalid/out';

let server: TestServer;
const tmp = tempDir();
const crawled = tmp.path('crawl.sqlite');

const at = (path: string) => new URL(path, server.url).href;
const allPages = PAGES.map((path) => `<a href="${path}">${path}</a>`).join(' ');

interface LinkRow {
  from_url: string;
  to_url: string;
  kind: string;
  nofollow: number;
}
const LINKS = 'SELECT from_url, to_url, kind, nofollow FROM links ORDER BY from_url, to_url, kind';
const linksOf = (path: string) => readArchive<LinkRow>(path, LINKS);
/** Links that spell out a target which has a url row: none, once every target is resolved. */
const spelledOut = (path: string) =>
  readArchive<{ n: number }>(path, "SELECT count(*) AS n FROM link l JOIN url u ON u.url = l.to_url WHERE l.to_url <> ''")[0]!.n;
/** The text the link table still holds: the targets without a url row. */
const textTargets = (path: string) =>
  readArchive<{ to_url: string }>(path, 'SELECT DISTINCT to_url FROM link WHERE to_id = 0 ORDER BY to_url').map((row) => row.to_url);

beforeAll(async () => {
  server = await startServer(
    routes({
      '/': doc(
        '',
        `${allPages} <a href="/a">a</a> <a href="/r">r</a> <a rel="nofollow" href="/quiet">q</a> <a href="${OUTSIDE}">out</a> <a href="/late">late</a>`,
      ),
      // Its canonical is found by a link only later, from the page it links to: kept as text when written.
      '/late': doc('<link rel="canonical" href="/zz-found-later">', '<a href="/zz-deeper">deeper</a>'),
      '/zz-deeper': doc('', '<a href="/zz-found-later">found later</a>'),
      '/zz-found-later': doc('', 'linked at last'),
      '/a': doc('<link rel="canonical" href="/canon-only">', `<a href="/">home</a> <a href="/a">self</a> <img src="/pic.png">`),
      // Past the redirect budget (0), a refresh is recorded as a link only.
      '/r': doc('<meta http-equiv="refresh" content="0; url=/refreshed">', ''),
      '/quiet': doc('', 'not followed, still linked'),
      ...Object.fromEntries(PAGES.map((path) => [path, doc('', `${allPages} <a href="${OUTSIDE}">out</a>`)])),
    }),
  );
  const result = await within(
    runCli(['crawl', server.url, '--db', crawled, '-q', '--ignore-robots', '--max-redirects', '0']),
    60_000,
    'crawl',
  );
  expect(result).toMatchObject({ code: 0 });
}, 90_000);

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('links stored by target id', () => {
  it('stores each kind as the code link_kind names it, the two most common (requisite, link) as 0 and 1', () => {
    const table = readArchive<{ code: number; kind: string }>(crawled, 'SELECT code, kind FROM link_kind ORDER BY code');
    expect(table).toEqual(
      Object.entries(LINK_KIND_CODE)
        .map(([kind, code]) => ({ code, kind }))
        .sort((x, y) => x.code - y.code),
    );
    const stored = readArchive<{ kind: number }>(crawled, "SELECT DISTINCT l.kind FROM link l JOIN links v ON v.kind = 'link'");
    expect(stored.map((row) => row.kind)).toContain(LINK_KIND_CODE.link);
    expect(readArchive(crawled, 'SELECT typeof(kind) AS t FROM link GROUP BY 1')).toEqual([{ t: 'integer' }]);
  });

  it('the links view gives every link as before: link-only targets, external and nofollow links, self-links', () => {
    const links = linksOf(crawled);
    const from = (path: string) =>
      links.filter((row) => row.from_url === at(path)).map(({ to_url, kind, nofollow }) => ({ to_url, kind, nofollow }));
    expect(from('/a')).toEqual([
      { to_url: at('/'), kind: 'link', nofollow: 0 },
      { to_url: at('/a'), kind: 'link', nofollow: 0 },
      { to_url: at('/canon-only'), kind: 'canonical', nofollow: 0 },
      { to_url: at('/pic.png'), kind: 'requisite', nofollow: 0 },
    ]);
    expect(from('/r')).toEqual([{ to_url: at('/refreshed'), kind: 'refresh', nofollow: 0 }]);
    expect(from('/')).toEqual(
      [
        ...PAGES.map((path) => ({ to_url: at(path), kind: 'link', nofollow: 0 })),
        { to_url: at('/a'), kind: 'link', nofollow: 0 },
        { to_url: at('/quiet'), kind: 'link', nofollow: 1 },
        { to_url: at('/r'), kind: 'link', nofollow: 0 },
        { to_url: at('/late'), kind: 'link', nofollow: 0 },
        { to_url: OUTSIDE, kind: 'link', nofollow: 0 },
      ].sort((x, y) => (x.to_url < y.to_url ? -1 : 1)),
    );
    expect(from('/late')).toEqual([
      { to_url: at('/zz-deeper'), kind: 'link', nofollow: 0 },
      { to_url: at('/zz-found-later'), kind: 'canonical', nofollow: 0 },
    ]);
    expect(from('/zz-deeper')).toEqual([{ to_url: at('/zz-found-later'), kind: 'link', nofollow: 0 }]);
    expect(from(PAGES[7]!)).toHaveLength(PAGES.length + 1);
    expect(links).toHaveLength(4 + 1 + PAGES.length + 5 + 2 + 1 + PAGES.length * (PAGES.length + 1));
  });

  it('spells out only the targets that had no url row when the link was written, each other by id', () => {
    expect(readArchive(crawled, 'SELECT url FROM url WHERE url IN (?, ?, ?)', at('/canon-only'), at('/refreshed'), OUTSIDE)).toEqual([
      { url: OUTSIDE },
    ]);
    expect(textTargets(crawled)).toEqual([at('/canon-only'), at('/refreshed'), at('/zz-found-later')]);
    // The canonical found by a link later keeps its text (the view reads the same); a merge or a migration resolves it.
    expect(spelledOut(crawled)).toBe(1);
    expect(readArchive(crawled, "SELECT count(*) AS n FROM link WHERE (to_id = 0) = (to_url = '')")).toEqual([{ n: 0 }]);
  });

  it('the table holds ids, not URL text: far smaller than the URLs it names', () => {
    const [sizes] = readArchive<{ bytes: number; text: number }>(
      crawled,
      "SELECT (SELECT sum(pgsize) FROM dbstat WHERE name = 'link') AS bytes, (SELECT sum(length(to_url)) FROM links) AS text",
    );
    // About 1,700 links whose targets spell 150,000 bytes or so; by id they fit in a few pages.
    expect(sizes!.text).toBeGreaterThan(100_000);
    expect(sizes!.bytes).toBeLessThan(sizes!.text / 4);
  });

  it('an archive of the schema before (every target spelled out) migrates to ids with the same links view', () => {
    const old = tmp.path('schema16.sqlite');
    copyFileSync(crawled, old);
    const db = new Database(old);
    db.exec(UNDO_SCHEMA_17);
    db.close();
    const before = linksOf(old);
    expect(before).toEqual(linksOf(crawled));
    expect(readArchive<{ n: number }>(old, 'SELECT count(*) AS n FROM link l JOIN url u ON u.url = l.to_url')[0]!.n).toBeGreaterThan(1000);
    openArchive(old, 'create').close();
    expect(readArchive(old, 'PRAGMA user_version')).toEqual([{ user_version: latestSchemaVersion(loadMigrations()) }]);
    expect(linksOf(old)).toEqual(before);
    expect(textTargets(old)).toEqual([at('/canon-only'), at('/refreshed')]);
    expect(spelledOut(old)).toBe(0);
  });

  it('an import of the crawl WARC gives the same links, a target captured after a link to it by id', async () => {
    // Its records come in URL order: /late, naming its canonical, before /zz-deeper, which links to it.
    const warc = tmp.path('crawl.warc.gz');
    expect(await execCli(['export', crawled, '--warc', warc, '-q'])).toMatchObject({ code: 0 });
    const imported = tmp.path('imported.sqlite');
    expect(await execCli(['import', warc, '--db', imported, '-q'])).toMatchObject({ code: 0 });
    expect(linksOf(imported)).toEqual(linksOf(crawled));
    // The refresh target, not in the WARC, has a url row here (skipped, not in the WARC).
    expect(textTargets(imported)).toEqual([at('/canon-only')]);
    expect(spelledOut(imported)).toBe(0);
  }, 60_000);

  it('a merge, a URL at a time, keeps every link and names each target by the output id', async () => {
    const merged = tmp.path('merged.sqlite');
    // One URL per batch: most links are copied before their targets' url rows reach the output.
    const run = await execCli(['merge', crawled, '--db', merged, '-q', '--batch', '1']);
    expect(run).toMatchObject({ code: 0 });
    expect(linksOf(merged)).toEqual(linksOf(crawled));
    expect(textTargets(merged)).toEqual([at('/canon-only'), at('/refreshed')]);
    expect(spelledOut(merged)).toBe(0);
    // Merged again: nothing changes, no link twice.
    expect(await execCli(['merge', crawled, '--db', merged, '-q', '--batch', '7'])).toMatchObject({ code: 0 });
    expect(linksOf(merged)).toEqual(linksOf(crawled));
  }, 60_000);
});
