import { expect } from 'vitest';
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
