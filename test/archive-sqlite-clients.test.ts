import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli } from './support/cli.js';
import { tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// An archive with Chinese, Japanese and accented pages reads whole in the SQLite that Debian 12 ships (3.40)
// and in the tools built on it: every table and view, the word index and the trigram index.

const run = promisify(execFile);
const tool = (name: string) => [`/usr/bin/${name}`, `/usr/local/bin/${name}`].find((path) => existsSync(path));
const SQLITE3 = tool('sqlite3');
const SQLITE_UTILS = tool('sqlite-utils');
if (!SQLITE3)
  console.warn('archive-sqlite-clients: skipping the sqlite3 tests: the sqlite3 CLI is not installed (apt-get install sqlite3)');
if (!SQLITE_UTILS)
  console.warn('archive-sqlite-clients: skipping the sqlite-utils tests: sqlite-utils is not installed (apt-get install sqlite-utils)');

const PAGES = {
  '/zh': html('<p>这是一个中文搜索引擎的测试页面。</p>', '中文页面'),
  '/ja': html('<p>東京都の図書館で日本語の本を読みます。カフェ café も近い。</p>', '日本語のページ'),
  '/fr': html('<p>Une crème brûlée au café, près de la gare.</p>', 'Café de la gare'),
  '/en': html('<p>Lighthouses guide ships at night.</p>', 'Lighthouses'),
};

const tmp = tempDir();
const db = tmp.path('site.sqlite');
let server: TestServer;

beforeAll(async () => {
  server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': html(
        Object.keys(PAGES)
          .map((path) => `<a href="${path}">${path}</a>`)
          .join(' '),
        'Home',
      ),
      ...PAGES,
    }),
  );
  const crawl = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawl.stderr).toBe('');
  expect(crawl.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const sqlite3 = async (sql: string) =>
  (await run(SQLITE3!, ['-csv', db, sql], { timeout: 20_000 })).stdout.trim().split(/\r?\n/).filter(Boolean);
const paths = (urls: string[]) => urls.map((url) => new URL(url).pathname).sort();

describe.skipIf(!SQLITE3)('the sqlite3 CLI', () => {
  it('counts the rows of every table and view', async () => {
    const names = await sqlite3("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name");
    expect(names).toEqual(
      expect.arrayContaining([
        'pages',
        'page_text',
        'page_text_fts',
        'page_text_trigram',
        'page_text_cjk',
        'search',
        'captures',
        'changes',
      ]),
    );
    const failed: string[] = [];
    const counts = new Map<string, number>();
    for (const name of names) {
      try {
        counts.set(name, Number((await sqlite3(`SELECT count(*) FROM "${name}"`))[0]));
      } catch (error) {
        failed.push(`${name}: ${(error as { stderr?: string }).stderr?.trim() ?? String(error)}`);
      }
    }
    expect(failed).toEqual([]);
    expect(counts.get('page_text')).toBe(5);
    expect(counts.get('page_text_trigram')).toBe(2);
  });

  it('finds a CJK substring through page_text_trigram and an unaccented word through the word index', async () => {
    const trigram = (query: string) =>
      sqlite3(
        `SELECT t.url FROM page_text_trigram JOIN page_text t ON t.url_id = page_text_trigram.rowid WHERE page_text_trigram MATCH '${query}'`,
      );
    expect(paths(await trigram('搜索引'))).toEqual(['/zh']);
    expect(paths(await trigram('図書館'))).toEqual(['/ja']);
    expect(paths(await sqlite3("SELECT url FROM search WHERE search MATCH 'creme brulee' ORDER BY rank"))).toEqual(['/fr']);
    expect(paths(await sqlite3("SELECT url FROM search WHERE search MATCH 'cafe' ORDER BY rank"))).toEqual(['/fr', '/ja']);
  });
});

describe.skipIf(!SQLITE_UTILS)('sqlite-utils', () => {
  it('lists every table with its row count', async () => {
    const { stdout } = await run(SQLITE_UTILS!, ['tables', db, '--counts', '--csv'], { timeout: 20_000 });
    const counts = Object.fromEntries(
      stdout
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((line) => line.split(','))
        .map(([table, count]) => [table, Number(count)]),
    );
    expect(counts).toMatchObject({ page_text: 5, page_text_fts: 5, page_text_trigram: 2, url: 6 });
  });

  it('searches page_text through its word index, accents folded', async () => {
    const { stdout } = await run(SQLITE_UTILS!, ['search', db, 'page_text', 'cafe', '--csv', '-c', 'url'], { timeout: 20_000 });
    expect(paths(stdout.trim().split(/\r?\n/).slice(1))).toEqual(['/fr', '/ja']);
  });
});
