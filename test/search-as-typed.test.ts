import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchArchive } from '../src/serve/search-mount.js';
import { serveArchive, type ServingArchive } from '../src/serve/serve-archive.js';
import { createUiHandler } from '../src/serve/ui/ui-handler.js';
import { openArchive as openReader } from '../src/storage/reader/archive-reader.js';
import { ArchiveFacts } from '../src/storage/reader/archive-facts.js';
import { searchArchive, type SearchOptions } from '../src/storage/query/search-archive.js';
import { tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { mulberry32 } from './support/prng.js';
import { get } from './support/serve.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// A query is read as people type it, punctuation and all (sys.path, f-string, @dataclass, C++, it's),
// and nothing typed is a syntax error; FTS5's own syntax is there behind --fts (mode=fts in the UI).

/** One page per query, each word or token of which is on that page alone. */
const PAGES: Record<string, [title: string, text: string]> = {
  '/syspath': ['Module search', 'Add the folder to sys.path before the import runs.'],
  '/apart': ['Admins', 'The path every sys admin takes is long.'],
  '/fstring': ['Formatting', 'An f-string formats values inline.'],
  '/dataclass': ['Classes', 'Decorate the class with @dataclass to get an init method.'],
  '/cpp': ['Templates', 'C++ templates are compiled.'],
  '/its': ['Worth', "Whatever it's worth, keep it."],
  '/words': ['Words', 'Salt and pepper; an unbalanced diet; (parenthesised) remarks.'],
  '/cjk': ['中文', '<p>中文搜索引擎</p>'],
};

const tmp = tempDir();
const db = tmp.path('docs.sqlite');
let site: TestServer;

beforeAll(async () => {
  const table: Parameters<typeof routes>[0] = {
    '/robots.txt': { status: 404 },
    '/': html(
      Object.keys(PAGES)
        .map((path, i) => `<a href="${path}">link${i}</a>`)
        .join(' '),
      'Home',
    ),
  };
  for (const [path, [title, text]] of Object.entries(PAGES)) table[path] = html(`<p>${text}</p>`, title);
  site = await startServer(routes(table));
  const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
  expect(crawl.stderr).toBe('');
  expect(crawl.code).toBe(0);
});

afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

const pathOf = (url: string) => new URL(url).pathname;

/** The built CLI's `search` as JSON: exit code, the pages found (sorted) and stderr. */
async function cliSearch(...argv: string[]): Promise<{ code: number; paths: string[]; stderr: string }> {
  const run = await execCli(['search', db, ...argv, '-f', 'json']);
  const rows = run.code === 0 ? (JSON.parse(run.stdout) as { url: string }[]) : [];
  return { code: run.code, paths: rows.map((row) => pathOf(row.url)).sort(), stderr: run.stderr };
}

describe('crawlite search, as typed', () => {
  it.each([
    ['sys.path', ['/syspath']],
    ['f-string', ['/fstring']],
    ['@dataclass', ['/dataclass']],
    ['C++', ['/cpp']],
    ["it's", ['/its']],
    ['AND', ['/words']],
    ['"unbalanced', ['/words']],
    ['(parenthesised)', ['/words']],
    ['salt AND pepper', ['/words']],
    ['title:formatting', []],
    ['"the path" sys', ['/apart']],
    ['搜索引', ['/cjk']],
  ])('%s: exit 0 and the page with it', async (query, pages) => {
    const found = await cliSearch(query);
    expect(found).toEqual({ code: 0, paths: pages, stderr: '' });
  });

  it('a query with no word in it is one line saying there is nothing to search for, exit 1', async () => {
    for (const query of ['(', '@', '" "', '++ --']) {
      expectOneLine(
        await execCli(['search', db, query]),
        /^crawlite: nothing to search for in .*: a query needs a word \(a letter or a digit\)$/,
      );
    }
  });

  it('--fts takes FTS5 syntax, OR and prefix*, which as typed are words', async () => {
    expect(await cliSearch('--fts', 'dataclass OR templates')).toEqual({ code: 0, paths: ['/cpp', '/dataclass'], stderr: '' });
    expect(await cliSearch('--fts', 'templ*')).toEqual({ code: 0, paths: ['/cpp'], stderr: '' });
    expect(await cliSearch('--fts', 'path NOT folder')).toEqual({ code: 0, paths: ['/apart'], stderr: '' });
    expect(await cliSearch('dataclass OR templates')).toEqual({ code: 0, paths: [], stderr: '' });
    expect(await cliSearch('templ*')).toEqual({ code: 0, paths: [], stderr: '' });
  });

  it("--fts with what FTS5 cannot parse is FTS5's error in one line, exit 1", async () => {
    expectOneLine(
      await execCli(['search', db, '--fts', 'sys.path']),
      /^crawlite: bad search query "sys\.path": fts5: syntax error near "\."/,
    );
    expectOneLine(await execCli(['search', db, '--fts', '(']), /^crawlite: bad search query "\(": /);
  });
});

describe('searchArchive, as typed', () => {
  it('is the default mode, and never a syntax error whatever is typed', () => {
    const archive = new Database(db, { readonly: true });
    try {
      const search = (query: string, options: Partial<SearchOptions> = {}) =>
        searchArchive(archive, query, { limit: 10, ...options }).map((hit) => pathOf(hit.url));
      expect(search('sys.path')).toEqual(['/syspath']);
      expect(search('sys.path', { mode: 'typed' })).toEqual(['/syspath']);
      expect(() => search('sys.path', { mode: 'fts' })).toThrow(expect.objectContaining({ code: 'BAD_SEARCH_QUERY' }));
      // Random runs of FTS5's special characters among words: found or not, never an error but "nothing to search for".
      const rand = mulberry32(11);
      const pieces = [
        '"',
        "'",
        '(',
        ')',
        '*',
        ':',
        '^',
        '+',
        '-',
        '.',
        ',',
        '@',
        '#',
        '{',
        '}',
        'NEAR',
        'AND',
        'OR',
        'NOT',
        'sys',
        'path',
        'title',
        ' ',
        ' ',
        '\0',
        '\t',
        '中文',
        '搜索',
      ];
      for (let i = 0; i < 500; i += 1) {
        const query = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
        try {
          search(query);
        } catch (error) {
          expect(error, JSON.stringify(query)).toMatchObject({ code: 'NOTHING_TO_SEARCH' });
        }
      }
    } finally {
      archive.close();
    }
  });
});

describe('the UI search page', () => {
  let serving: ServingArchive;
  beforeAll(async () => {
    serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await serving?.close();
  });

  const hrefs = (body: string) =>
    [...body.matchAll(/<a href="\/capture\?url=([^"]+)"/g)].map((match) => pathOf(decodeURIComponent(match[1]!))).sort();

  it('finds sys.path as typed, and reads FTS5 syntax with mode=fts (the checkbox, checked)', async () => {
    const typed = await get(serving.uiUrl, '/search?q=sys.path');
    expect(typed.status).toBe(200);
    expect(hrefs(typed.body)).toEqual(['/syspath']);
    expect(typed.body).toContain('<input name="mode" type="checkbox" value="fts">');

    const fts = await get(serving.uiUrl, '/search?q=dataclass+OR+templates&mode=fts');
    expect(fts.status).toBe(200);
    expect(hrefs(fts.body)).toEqual(['/cpp', '/dataclass']);
    expect(fts.body).toContain('<input name="mode" type="checkbox" value="fts" checked>');
    const asWords = await get(serving.uiUrl, '/search?q=dataclass+OR+templates');
    expect([asWords.status, hrefs(asWords.body)]).toEqual([200, []]);
  });

  it('says there is nothing to search for (400) for punctuation alone, shows FTS5 errors with mode=fts (400), and refuses an unknown mode', async () => {
    const nothing = await get(serving.uiUrl, `/search?q=${encodeURIComponent('(')}`);
    expect(nothing.status).toBe(400);
    expect(nothing.body).toContain(
      '<p class="error" id="search-error">nothing to search for in &quot;(&quot;: a query needs a word (a letter or a digit)</p>',
    );
    const bad = await get(serving.uiUrl, '/search?q=sys.path&mode=fts');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/<p class="error" id="search-error">bad search query &quot;sys.path&quot;: fts5: syntax error near/);
    expect((await get(serving.uiUrl, '/search?q=sys&mode=raw')).status).toBe(400);
  });

  it("keeps mode=fts in the next page's link", async () => {
    const modes: Array<string | undefined> = [];
    const search: SearchArchive = async (_query, options) => {
      modes.push(options.mode);
      return Array.from({ length: options.limit }, (_, i) => ({
        url: `${site.url}p${i}`,
        title: `p${i}`,
        snippet: '',
        rank: -1,
        section: null,
        fetchedAt: '2026-01-01T00:00:00.000Z',
        status: 200,
      }));
    };
    const reader = openReader(db);
    const facts = ArchiveFacts.open(db);
    const server: Server = createServer(createUiHandler({ archive: reader, facts, replayOrigin: 'http://127.0.0.1:1', search }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const fts = await get(base, '/search?q=a*&mode=fts');
      expect(fts.body).toContain('<a id="next" rel="next" href="/search?q=a*&amp;mode=fts&amp;offset=20">');
      const typed = await get(base, '/search?q=a');
      expect(typed.body).toContain('<a id="next" rel="next" href="/search?q=a&amp;offset=20">');
      expect(modes).toEqual(['fts', 'typed']);
    } finally {
      server.close();
      reader.close();
      facts.close();
    }
  });
});
