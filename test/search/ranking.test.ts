import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchArchive, type SearchHit } from '../../src/library/index.js';
import { runCli } from '../support/cli.js';
import { readArchive, tempDir } from '../support/archive.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

const FILLER = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>On ${topic}, note ${i}: the interpreter reads the source, compiles it and runs it.</p>`).join('');

/**
 * A small documentation site with the shapes that mislead bm25: an index whose entries are links (short,
 * so one mention weighs much), short pages that mention the words in passing, and a long guide whose
 * one section is about the thing.
 */
const SITE = {
  '/': html(
    ['/genindex.html', '/expressions.html', '/guide.html', '/a.html', '/b.html', '/c.html']
      .map((href) => `<a href="${href}">${href}</a>`)
      .join(' '),
    'Home',
  ),
  '/genindex.html': html(
    `<h1>Index</h1><ul>${['walk_tb()', 'walrus operator', 'want', 'warn()', 'warning', 'weakref', 'while statement']
      .map((entry, i) => `<li><a href="/expressions.html#i${i}">${entry}</a></li>`)
      .join('')}</ul>`,
    'Index',
  ),
  '/expressions.html': html(
    `<h1>Expressions</h1>${FILLER('expressions', 12)}<h2>Assignment expressions</h2><p>An assignment expression, also called
    the walrus operator, assigns to a name and returns the value.</p>${FILLER('calls', 12)}`,
    'Expressions',
  ),
  '/guide.html': html(
    `<h1>The guide</h1>${['Objects', 'Types', 'Attributes', 'Descriptors', 'Slots', 'Metaclasses']
      .map((topic) => `<h2>${topic}</h2>${FILLER(topic.toLowerCase(), 8)}`)
      .join('')}<h2>Context Managers</h2><p>A context manager is an object that defines the runtime context of a with
    statement. The context manager handles the entry into, and the exit from, the desired runtime context.</p>
    ${['Coroutines', 'Iterators', 'Generators'].map((topic) => `<h2>${topic}</h2>${FILLER(topic.toLowerCase(), 8)}`).join('')}`,
    'The guide',
  ),
  // Short pages that name both words apart, in passing.
  '/a.html': html('<p>The manager of the build writes the context of each step to the log.</p>', 'Builds'),
  '/b.html': html('<p>A window manager draws frames; the context menu opens on a right click.</p>', 'Windows'),
  '/c.html': html('<p>Give the context of the error to the package manager.</p>', 'Packages'),
};

describe('search ranks the page about the thing first', () => {
  let site: TestServer;
  const dir = tempDir();
  const db = dir.path('site.sqlite');
  beforeAll(async () => {
    site = await startServer(routes(SITE));
    const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  });
  afterAll(async () => {
    await site?.close();
    dir.cleanup();
  });

  const search = async (query: string, mode?: 'fts'): Promise<SearchHit[]> => {
    const hits: SearchHit[] = [];
    await searchArchive({ db, query, ...(mode ? { mode } : {}), onHits: (batch) => void hits.push(...batch) });
    return hits;
  };
  const paths = (hits: SearchHit[]) => hits.map((hit) => new URL(hit.url).pathname);

  it("stores each page's share of link text", () => {
    const shares = new Map(
      readArchive<{ url: string; link_share: number }>(
        db,
        'SELECT t.url, s.link_share FROM page_link_share s JOIN page_text t USING (url_id)',
      ).map((row) => [new URL(row.url).pathname, row.link_share]),
    );
    expect(shares.get('/genindex.html')).toBeGreaterThan(0.8);
    expect(shares.get('/guide.html')).toBe(0);
  });

  it('puts the page that explains a word before the index that lists it, as typed and with --fts', async () => {
    expect(paths(await search('walrus'))).toEqual(['/expressions.html', '/genindex.html']);
    expect(paths(await search('walrus', 'fts'))).toEqual(['/expressions.html', '/genindex.html']);
  });

  it('finds the section about the words in a long page before short pages that name them in passing, and names it', async () => {
    const hits = await search('context manager');
    expect(paths(hits)[0]).toBe('/guide.html');
    expect(hits[0]!.section).toBe('Context Managers');
    expect(paths(hits).slice(1).sort()).toEqual(['/a.html', '/b.html', '/c.html']);
    // Best first, as the rank says.
    expect(hits.map((hit) => hit.rank)).toEqual(hits.map((hit) => hit.rank).sort((a, b) => a - b));
  });

  it('pages through the results without repeating or skipping a page', async () => {
    const all = paths(await search('the'));
    const pages: string[] = [];
    for (let offset = 0; offset < all.length; offset += 2) {
      const hits: SearchHit[] = [];
      await searchArchive({ db, query: 'the', limit: 2, offset, onHits: (batch) => void hits.push(...batch) });
      pages.push(...paths(hits));
    }
    expect(pages).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('search results past the first hundred, which are not ranked again by section', () => {
  let site: TestServer;
  const dir = tempDir();
  const db = dir.path('many.sqlite');
  const PAGES = 130;
  beforeAll(async () => {
    const table: Record<string, ReturnType<typeof html>> = {
      '/': html(Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}.html">p${i}</a>`).join(' '), 'Home'),
    };
    for (let i = 0; i < PAGES; i++) {
      // Each page names the word a different number of times, under a heading on some, in links on others.
      const words = Array.from({ length: 1 + (i % 9) }, () => 'lantern').join(' and ');
      table[`/p${i}.html`] = html(
        i % 3 === 0
          ? `<h2>Lantern ${i}</h2><p>${words}.</p>${FILLER('lamps', 1 + (i % 5))}`
          : `<p><a href="/">${words}</a></p>${FILLER('oil', i % 4)}`,
        `Page ${i}`,
      );
    }
    site = await startServer(routes(table));
    const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  });
  afterAll(async () => {
    await site?.close();
    dir.cleanup();
  });

  it('pages through all of them, across the hundredth, in the order of one long list', async () => {
    const read = async (limit: number, offset: number) => {
      const hits: SearchHit[] = [];
      await searchArchive({ db, query: 'lantern', limit, offset, onHits: (batch) => void hits.push(...batch) });
      return hits.map((hit) => hit.url);
    };
    const all = await read(500, 0);
    expect(all).toHaveLength(PAGES);
    const paged: string[] = [];
    for (let offset = 0; offset < PAGES; offset += 7) paged.push(...(await read(7, offset)));
    expect(paged).toEqual(all);
    expect(new Set(paged).size).toBe(PAGES);
  });
});
