import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// Resuming a crawl that has nothing left to fetch says so, and how to fetch it again, instead of a report of nothing.
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/a">a</a> <a href="/gone">gone</a>'), '/a': html('a') }));
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('resume of a finished crawl', () => {
  it('says the crawl is complete and that recrawl fetches it again, prints no report, fetches nothing, exits 0', async () => {
    const db = tmp.path('finished.sqlite');
    const first = await runCli(['crawl', server.url, '--db', db, '--ignore-robots', '-q']);
    expect(first.code, first.stderr).toBe(0);
    const hits = server.totalHits();

    const resumed = await runCli(['resume', db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('');
    expect(resumed.stderr).toBe(
      `${db}: the crawl is complete (3 done, 0 failed, 0 skipped): nothing to resume; crawlite recrawl ${db} fetches it again\n`,
    );
    expect(server.totalHits()).toBe(hits);

    const quiet = await runCli(['resume', db, '-q']);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a crawl stopped by --max-pages is not complete: resume goes on', async () => {
    const db = tmp.path('limited.sqlite');
    expect((await runCli(['crawl', server.url, '--db', db, '--ignore-robots', '--max-pages', '1', '-q'])).code).toBe(0);
    const resumed = await runCli(['resume', db, '--max-pages', '10']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^resuming /m);
    expect(resumed.stdout).toMatch(/\S/);
  });
});
