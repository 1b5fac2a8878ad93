import { afterAll, beforeAll, expect } from 'vitest';
import { tempDir } from './archive.js';
import { runCli } from './cli.js';
import { html, routes, startServer, type TestServer } from './test-server.js';

/**
 * A three-page site, crawled into `db`: a home page linking the others, a guide whose body is `article`,
 * and a short page of its own words.
 */
export async function crawlTeaSite(db: string, article: string): Promise<TestServer> {
  const server = await startServer(
    routes({
      '/robots.txt': { status: 404 },
      '/': html('<a href="/guide">guide</a> <a href="/leaves">leaves</a>', 'Home'),
      '/guide': html(article, 'Guide'),
      '/leaves': html('<p>Leaves of the tea plant, dried.</p>', 'Leaves'),
    }),
  );
  expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
  return server;
}

/** crawlTeaSite for a test file: crawled before its tests into `db` in `tmp`, both gone after them. */
export function useCrawledTeaSite(article: string): { tmp: ReturnType<typeof tempDir>; db: string; readonly url: string } {
  const tmp = tempDir();
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await crawlTeaSite(tmp.path('site.sqlite'), article);
  });
  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });
  return {
    tmp,
    db: tmp.path('site.sqlite'),
    get url() {
      return server!.url;
    },
  };
}
