import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

const PAGES = 60;
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  // Every page links to all others, so the frontier is always far larger than the cap.
  const all = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
  const table = Object.fromEntries(Array.from({ length: PAGES }, (_, i) => [`/p${i}`, { ...html(all), delayMs: 25 }]));
  server = await startServer(routes({ '/': html(all), ...table }));
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('never has more requests in flight than --concurrency, and uses all of them', async () => {
  const result = await runCli(['crawl', server.url, '--db', tmp.path('cap.sqlite'), '-c', '3', '-q']);
  expect(result.code).toBe(0);
  expect(server.maxInFlight).toBe(3);
  const [{ n }] = readArchive<{ n: number }>(tmp.path('cap.sqlite'), "SELECT count(*) AS n FROM pages WHERE kind = 'page'");
  expect(n).toBe(PAGES + 1);
});
