import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { fileSha256, tempDir, UNDO_SCHEMA_20 } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { liveToken } from '../support/live-rows.js';
import { get } from '../support/serve.js';

// An archive an older crawlite left (schema 19, no control tables) can be watched on the live page, not
// steered: a control is refused in one line (409) and the file is left exactly as it was.

const tmp = tempDir();
let db: string;
let serving: ServingArchive;

beforeAll(async () => {
  const site = await startLinkedSite(3);
  try {
    db = tmp.path('older.sqlite');
    expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  } finally {
    await site.close();
  }
  const handle = new Database(db);
  handle.exec(UNDO_SCHEMA_20);
  handle.pragma('journal_mode = DELETE');
  handle.close();
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

describe('the live page of an archive from before the control tables', () => {
  it('shows the crawl, says it cannot be steered, and refuses a control without writing a byte', async () => {
    const view = await get(serving.uiUrl, '/api/live');
    expect(view.status, view.body).toBe(200);
    expect(JSON.parse(view.body)).toMatchObject({ controls: false, crawl: { state: 'never' }, requests: [], exclusions: [] });
    expect(JSON.parse(view.body).recent).toHaveLength(5);
    const before = fileSha256(db);
    const origin = serving.uiUrl.replace(/\/$/, '');
    const sent = await get(serving.uiUrl, '/api/live/control', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, 'x-crawlite-token': await liveToken(serving.uiUrl) },
      body: JSON.stringify({ command: 'pause' }),
    });
    expect(sent.status).toBe(409);
    expect(JSON.parse(sent.body).error).toMatch(
      /was last crawled by an older crawlite: crawlite resume .* with this version, then control it$/,
    );
    expect(fileSha256(db)).toBe(before);
  });
});
