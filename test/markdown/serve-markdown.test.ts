import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { httpGet } from '../support/http-get.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// serve's capture page shows the capture's Markdown as text: escaped, never rendered as HTML from the archive.

const tmp = tempDir();
let server: TestServer;
let db: string;

const HOSTILE = '<img src=x onerror=alert(1)>';
const PAGE = `<main><h1>Markup</h1><p>Write an image tag like this and browsers will run its handler when the image fails to load:</p>
<pre><code>${HOSTILE.replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code></pre><h2>Steps</h2><p>First escape, then show; a page that shows code must never run it.</p></main>`;

beforeAll(async () => {
  server = await startServer(routes({ '/robots.txt': { status: 404 }, '/': html(PAGE, 'Markup') }));
  db = tmp.path('site.sqlite');
  expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

async function capturePage(): Promise<string> {
  const serving: ServingArchive = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
  try {
    const response = await httpGet(serving.uiUrl, `/capture?url=${encodeURIComponent(server.url)}`);
    expect(response.status).toBe(200);
    return response.body.toString('utf8');
  } finally {
    await serving.close();
  }
}

const markdownOf = (page: string) => /<pre id="markdown">([\s\S]*?)<\/pre>/.exec(page)?.[1];

describe("serve's capture page", () => {
  it('shows the Markdown made for the view, escaped', async () => {
    const page = await capturePage();
    const shown = markdownOf(page);
    expect(shown).toContain('## Steps');
    expect(shown).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain('crawlite markdown</code> stores it');
  });

  it('shows the stored Markdown once crawlite markdown made it', async () => {
    expect((await runCli(['markdown', db, '-q'])).code).toBe(0);
    const page = await capturePage();
    expect(page).toContain('Stored in page_markdown.');
    expect(markdownOf(page)).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(HOSTILE);
  });
});
