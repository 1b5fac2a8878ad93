import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { get } from '../support/serve.js';
import { startUiServer, type UiServer } from '../support/ui-server.js';

// Who the UI answers, by the headers a browser sends (Fetch Metadata and Origin): its own pages, a
// user's typed or bookmarked visit, and clients that send none (curl); never a page elsewhere, the
// replay origin (a `same-site` one) included. A refusal is a 403 before anything reads the archive.

const tmp = tempDir();
let ui: UiServer;
let page: string;

beforeAll(async () => {
  const site = await startLinkedSite(3);
  try {
    const db = tmp.path('a.sqlite');
    expect((await execCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
    page = site.url;
    ui = await startUiServer(db);
  } finally {
    await site.close();
  }
});

afterAll(async () => {
  await ui?.close();
  tmp.cleanup();
});

const q = (sql: string) => encodeURIComponent(sql);
/** Every address of the UI that reads the archive: queries, downloads, search, diffs, captures, the APIs. */
const ADDRESSES = () => [
  `/sql?sql=${q('select 1')}`,
  `/sql?view=pages`,
  `/sql.csv?sql=${q('select 1')}`,
  `/sql.json?sql=${q('select 1')}`,
  '/search?q=page',
  '/changes',
  `/changes?url=${q(page)}`,
  '/urls',
  `/capture?url=${q(page)}`,
  `/raw?url=${q(page)}`,
  `/screenshot?url=${q(page)}`,
  `/api/capture?url=${q(page)}&ts=20300101000000`,
  '/api/timeline',
  `/replay?url=${q(page)}&ts=20300101000000`,
  '/',
];
const FROM_ELSEWHERE = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' };
const FROM_REPLAY = { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' };

describe('the UI answers its own pages only', () => {
  it('refuses every address that reads the archive to a page elsewhere and to the replay origin, with a short 403', async () => {
    for (const headers of [
      FROM_ELSEWHERE,
      FROM_REPLAY,
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
    ]) {
      for (const path of ADDRESSES()) {
        const answer = await get(ui.url, path, { headers });
        expect([path, answer.status], JSON.stringify(headers)).toEqual([path, 403]);
        expect(answer.body).toContain('this archive answers its own pages only');
        expect(answer.body).not.toContain('id="open-here"');
      }
    }
  });

  it('refuses a request whose Origin is not its own, with Fetch Metadata or without', async () => {
    for (const origin of ['http://evil.example', 'null', ui.url.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`)]) {
      const answer = await get(ui.url, `/sql?sql=${q('select 1')}`, { headers: { origin } });
      expect([origin, answer.status]).toEqual([origin, 403]);
      const withSite = await get(ui.url, '/search?q=page', { headers: { origin, 'sec-fetch-site': 'same-origin' } });
      expect([origin, withSite.status]).toEqual([origin, 403]);
    }
  });

  it('answers its own pages, a typed or bookmarked visit, and clients that send no Fetch Metadata', async () => {
    const own = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', origin: ui.url };
    const typed = { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    for (const headers of [own, typed, {}]) {
      for (const path of ADDRESSES()) {
        const answer = await get(ui.url, path, { headers });
        expect([path, answer.status], JSON.stringify(headers)).not.toEqual([path, 403]);
      }
    }
    const plain = await get(ui.url, `/sql.csv?sql=${q('select 7 as n')}`);
    expect([plain.status, plain.body]).toEqual([200, 'n\r\n7\r\n']);
  });

  it('lets a link or a redirect from elsewhere open the overview and a replay frame page, and offers a link to open anything else', async () => {
    const visit = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    for (const site of ['same-site', 'cross-site']) {
      expect((await get(ui.url, '/', { headers: { ...visit, 'sec-fetch-site': site } })).status).toBe(200);
      expect(
        (await get(ui.url, `/replay?url=${q(page)}&ts=20300101000000`, { headers: { ...visit, 'sec-fetch-site': site } })).status,
      ).toBe(200);
      const query = await get(ui.url, `/sql?sql=${q('select 1')}`, { headers: { ...visit, 'sec-fetch-site': site } });
      expect(query.status).toBe(403);
      expect(query.body).toContain(`<a id="open-here" href="/sql?sql=select%201">`);
    }
  });

  it('serves its static files to anyone', async () => {
    expect((await get(ui.url, '/assets/style.css', { headers: FROM_ELSEWHERE })).status).toBe(200);
  });
});
