import { expect } from 'vitest';
import { addCrawl } from './captures.js';
import { execCli } from './cli.js';
import { html, routes, startServer, text, type Route } from './test-server.js';

// An archive with three crawls of one small site: the first crawled for real
// by the built CLI, the next two added as a re-crawl leaves them (see
// captures.ts). Between crawls 1 and 2 every kind of change happens once;
// crawl 3 changes /a again, confirms / with a 304 and finds the rest as it was.

export const PAGE_A1 = html('<h1>About</h1><p>We sell apples. Open daily.</p>', 'About');
export const PAGE_A2 = html('<h1>About</h1><p>We sell pears. Open daily.</p>', 'About');
export const PAGE_A3 = html('<h1>About us</h1><p>We sell pears. Open daily. Closed on Sundays.</p>', 'About');
export const PAGE_B = html('<p>Bees are busy.</p>', 'Bees');
export const PAGE_C = html('<p>Cats sleep.</p>', 'Cats');
export const PAGE_D = html('<p>Dogs bark.</p>', 'Dogs');
export const PAGE_R = html('<p>Soon to move.</p>', 'Moving');
export const PAGE_F = html('<p>Fleeting.</p>', 'Fleeting');
export const TEXT_1 = 'line one\nline two\n';
export const TEXT_2 = 'line one\nline 2\n';
const PATHS = ['/a', '/b', '/c', '/d', '/r', '/f', '/t.txt'];
export const ROOT = html(PATHS.map((path) => `<a href="${path}">${path}</a>`).join(' '), 'Home');

export const CRAWL_2_AT = '2030-01-02T00:00:00.000Z';
export const CRAWL_3_AT = '2030-01-03T00:00:00.000Z';

export interface HistoryArchive {
  /** The site's origin, e.g. http://127.0.0.1:1234 (the server is closed once the archive is made). */
  origin: string;
  /** The `changes` view's rows right after crawl 2 (crawl 1 against 2). */
  changesAfterCrawl2: Array<Record<string, unknown>>;
}

const bodyOf = (route: Route): string => route.body as string;

/** Crawls the site into `db`, then adds crawls 2 and 3. */
export async function makeHistoryArchive(db: string, readChanges: () => Array<Record<string, unknown>>): Promise<HistoryArchive> {
  const server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': ROOT,
      '/a': PAGE_A1,
      '/b': PAGE_B,
      '/c': PAGE_C,
      '/d': PAGE_D,
      '/r': PAGE_R,
      '/f': PAGE_F,
      '/t.txt': text(TEXT_1),
    }),
  );
  const origin = server.url.replace(/\/$/, '');
  try {
    const crawl = await execCli(['crawl', server.url, '--db', db, '-q']);
    expect(crawl.stderr).toBe('');
    expect(crawl.code).toBe(0);
  } finally {
    await server.close();
  }
  const at = (path: string) => `${origin}${path}`;
  addCrawl(db, [
    { url: at('/'), fetchedAt: CRAWL_2_AT, body: bodyOf(ROOT) },
    { url: at('/a'), fetchedAt: CRAWL_2_AT, body: bodyOf(PAGE_A2) },
    { url: at('/b'), fetchedAt: CRAWL_2_AT, notModified: true },
    { url: at('/c'), fetchedAt: CRAWL_2_AT, body: bodyOf(PAGE_C) },
    { url: at('/d'), fetchedAt: CRAWL_2_AT, status: 404, body: 'not found', contentType: 'text/plain' },
    { url: at('/r'), fetchedAt: CRAWL_2_AT, status: 301, body: '', location: at('/a') },
    { url: at('/t.txt'), fetchedAt: CRAWL_2_AT, body: TEXT_2 },
    { url: at('/n'), fetchedAt: CRAWL_2_AT, body: bodyOf(html('<p>New here.</p>', 'New')) },
    { url: at('/robots.txt'), fetchedAt: CRAWL_2_AT },
  ]);
  const changesAfterCrawl2 = readChanges();
  addCrawl(db, [
    { url: at('/'), fetchedAt: CRAWL_3_AT, notModified: true },
    { url: at('/a'), fetchedAt: CRAWL_3_AT, body: bodyOf(PAGE_A3) },
    ...['/b', '/c', '/d', '/r', '/t.txt', '/n', '/robots.txt'].map((path) => ({ url: at(path), fetchedAt: CRAWL_3_AT })),
  ]);
  return { origin, changesAfterCrawl2 };
}
