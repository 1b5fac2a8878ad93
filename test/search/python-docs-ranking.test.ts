import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchArchive, type SearchHit } from '../../src/library/index.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/archive.js';
import { HAS_PYTHON_DOCS, noticeIfNoPythonDocs, PYTHON_DOCS, startDirectorySite } from '../support/directory-site.js';
import type { TestServer } from '../support/test-server.js';

noticeIfNoPythonDocs('python-docs-ranking.test.ts');

/**
 * Search finds the page about the thing on a real site: the Python docs, crawled whole. Ranked by bm25
 * alone, `walrus` finds Sphinx's index of W first, `open file` lists library modules and leaves the
 * tutorial's "Reading and Writing Files" 25th, and `context manager` leaves the data model 20th.
 */
describe.skipIf(!HAS_PYTHON_DOCS)('search ranking on the Python docs', () => {
  let site: TestServer;
  const dir = tempDir();
  const db = dir.path('docs.sqlite');
  beforeAll(async () => {
    site = await startDirectorySite(PYTHON_DOCS);
    const crawl = await runCli(['crawl', `${site.url}index.html`, '--db', db, '-c', '8', '-q']);
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    dir.cleanup();
  });

  const search = async (query: string): Promise<{ url: string; section: string | null }[]> => {
    const hits: SearchHit[] = [];
    await searchArchive({ db, query, limit: 20, onHits: (batch) => void hits.push(...batch) });
    return hits.map(({ url, section }) => ({ url: url.slice(site.url.length), section }));
  };

  it('walrus: the pages that explain the operator come before any index', async () => {
    const hits = (await search('walrus')).map((hit) => hit.url);
    const firstIndex = hits.findIndex((url) => url.startsWith('genindex'));
    expect(hits[0]).not.toMatch(/^genindex/);
    expect(hits.indexOf('reference/expressions.html')).toBeGreaterThanOrEqual(0);
    expect(hits.indexOf('reference/expressions.html')).toBeLessThan(firstIndex);
    expect(hits.indexOf('whatsnew/3.8.html')).toBeLessThan(firstIndex);
  });

  it('open file: the tutorial\'s "Reading and Writing Files" is in the first five', async () => {
    const hits = (await search('open file')).slice(0, 5);
    expect(hits).toContainEqual({ url: 'tutorial/inputoutput.html', section: '7.2. Reading and Writing Files' });
  });

  it("context manager: the data model's section is in the first five", async () => {
    const hits = (await search('context manager')).slice(0, 5);
    expect(hits).toContainEqual({ url: 'reference/datamodel.html', section: '3.3.9. With Statement Context Managers' });
  });
});
