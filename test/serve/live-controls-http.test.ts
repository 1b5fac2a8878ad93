import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveArchive, type ServingArchive } from '../../src/serve/serve-archive.js';
import { tempDir } from '../support/archive.js';
import { runCli } from '../support/cli.js';
import { startLinkedSite } from '../support/linked-site.js';
import { addUrls, controlRequests, liveToken } from '../support/live-rows.js';
import { get } from '../support/serve.js';

// The live page's controls at the HTTP level: a request from the page (its token, its Origin, JSON)
// appends one row to control_request for the crawl to apply; anything else is refused before the body
// is read, and nothing is written.

const tmp = tempDir();
let db: string;
let serving: ServingArchive;
let ui: string;
let origin: string;
let token: string;

beforeAll(async () => {
  const site = await startLinkedSite(3);
  try {
    db = tmp.path('live.sqlite');
    expect((await runCli(['crawl', site.url, '--db', db, '-q'])).code).toBe(0);
  } finally {
    await site.close();
  }
  // A short deadline for a preview, so the test of one that never ends is short too.
  serving = await serveArchive({ path: db, host: '127.0.0.1', port: 0, searchTimeoutMs: 1500 });
  ui = serving.uiUrl;
  origin = ui.replace(/\/$/, '');
  token = await liveToken(ui);
}, 60_000);

afterAll(async () => {
  await serving?.close();
  tmp.cleanup();
});

/** The headers Chromium sends with the live page's fetch. */
const fromPage = (): Record<string, string> => ({
  'content-type': 'application/json',
  origin,
  'sec-fetch-site': 'same-origin',
  'sec-fetch-mode': 'cors',
  'sec-fetch-dest': 'empty',
  'x-crawlite-token': token,
});

const post = (path: string, body: unknown, headers: Record<string, string> = fromPage(), host?: string) =>
  get(ui, path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), ...(host ? { host } : {}) });

const without = (name: string) => Object.fromEntries(Object.entries(fromPage()).filter(([key]) => key !== name));

describe("the live page's controls", () => {
  it('a control from the page appends one request, asked by serve, for the crawl to apply', async () => {
    const before = controlRequests(db).length;
    const sent = [
      { command: 'pause' },
      { command: 'resume' },
      { command: 'set', argument: { concurrency: 3, per_host: 1, delay_ms: 250 } },
      { command: 'exclude', argument: '[?&]id=' },
      { command: 'include', argument: '[?&]id=' },
    ];
    for (const body of sent) {
      const answer = await post('/api/live/control', body);
      expect([answer.status, JSON.parse(answer.body).command]).toEqual([202, body.command]);
    }
    const rows = controlRequests(db).slice(before);
    expect(rows.map(({ requested_by, command, argument, applied_at }) => ({ requested_by, command, argument, applied_at }))).toEqual([
      { requested_by: 'serve', command: 'pause', argument: null, applied_at: null },
      { requested_by: 'serve', command: 'resume', argument: null, applied_at: null },
      { requested_by: 'serve', command: 'set', argument: '{"concurrency":3,"per_host":1,"delay_ms":250}', applied_at: null },
      { requested_by: 'serve', command: 'exclude', argument: '[?&]id=', applied_at: null },
      { requested_by: 'serve', command: 'include', argument: '[?&]id=', applied_at: null },
    ]);
  });

  it('refuses with 403, and writes nothing, a request without the token, from another origin, another site, or to another name', async () => {
    const before = controlRequests(db).length;
    const otherPort = origin.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`);
    const refused: Array<[string, Record<string, string>, string?]> = [
      ['no token', without('x-crawlite-token')],
      ['a wrong token', { ...fromPage(), 'x-crawlite-token': token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) }],
      ['a token cut short', { ...fromPage(), 'x-crawlite-token': token.slice(0, -1) }],
      ['no Origin', without('origin')],
      ['Origin null', { ...fromPage(), origin: 'null' }],
      ['Origin of another port', { ...fromPage(), origin: otherPort }],
      ['Origin elsewhere', { ...fromPage(), origin: 'http://evil.example' }],
      ['a same-site request (a replayed page)', { ...fromPage(), 'sec-fetch-site': 'same-site' }],
      ['a cross-site request', { ...fromPage(), 'sec-fetch-site': 'cross-site' }],
      // The replay page's name is served by the UI's port too, but replayed sites share its domain.
      [
        'the replay page name',
        { ...fromPage(), origin: `http://crawlite.localhost:${new URL(ui).port}` },
        `crawlite.localhost:${new URL(ui).port}`,
      ],
    ];
    for (const [what, headers, host] of refused) {
      const answer = await post('/api/live/control', { command: 'pause' }, headers, host);
      expect([what, answer.status], answer.body).toEqual([what, 403]);
      expect(JSON.parse(answer.body).error).toMatch(/^Refused /);
    }
    // A Host that names no address of this server (DNS rebinding) is refused as everywhere in the UI.
    const rebound = await post(
      '/api/live/control',
      { command: 'pause' },
      { ...fromPage(), origin: 'http://evil.example:80' },
      'evil.example:80',
    );
    expect(rebound.status).toBe(421);
    // What an HTML form can send (no custom header, no JSON type) is refused whatever else it carries.
    const form = await post('/api/live/control', 'command=pause', { ...fromPage(), 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const plain = await post('/api/live/control', '{"command":"pause"}', { ...fromPage(), 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    // GET never changes anything.
    expect((await get(ui, '/api/live/control?command=pause')).status).toBe(404);
    expect((await get(ui, '/live?command=pause')).status).toBe(200);
    expect((await get(ui, '/api/live?command=pause')).status).toBe(200);
    expect(controlRequests(db).length).toBe(before);
  });

  it('refuses with 400, and writes nothing, a control that is not one', async () => {
    const before = controlRequests(db).length;
    const bad = [
      'not json',
      [],
      { command: 'drop table' },
      { command: 'stop' },
      { command: 'set', argument: { concurrency: 0 } },
      { command: 'set', argument: { concurrency: 2.5 } },
      { command: 'set', argument: { per_host: '2' } },
      { command: 'set', argument: { max_pages: 2 } },
      { command: 'set', argument: {} },
      { command: 'exclude', argument: '(' },
      { command: 'exclude', argument: '' },
      { command: 'exclude', argument: 'a'.repeat(1001) },
      { command: 'include' },
    ];
    for (const body of bad) {
      const answer = await post('/api/live/control', body);
      expect([JSON.stringify(body).slice(0, 60), answer.status]).toEqual([JSON.stringify(body).slice(0, 60), 400]);
    }
    const huge = await post('/api/live/control', { command: 'exclude', argument: 'a'.repeat(20_000) });
    expect(huge.status).toBe(400);
    expect(controlRequests(db).length).toBe(before);
  });

  it("the live page and its data answer the UI's own pages only", async () => {
    for (const site of ['same-site', 'cross-site']) {
      for (const path of ['/api/live', '/live']) {
        const answer = await get(ui, path, { headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' } });
        expect([path, site, answer.status]).toEqual([path, site, 403]);
        expect(answer.body).not.toContain(token);
      }
    }
    const port = new URL(ui).port;
    const onReplayName = await get(ui, '/live', { host: `crawlite.localhost:${port}` });
    expect(onReplayName.status).toBe(403);
    expect(onReplayName.body).not.toContain(token);
    expect((await get(ui, '/api/live', { host: `crawlite.localhost:${port}` })).status).toBe(403);
    expect((await get(ui, '/api/live', { headers: { 'sec-fetch-site': 'same-origin', origin } })).status).toBe(200);
  });

  it('previews how many queued URLs an exclusion would skip, at most 1,000, and stops a pattern that never ends at its deadline', async () => {
    addUrls(
      db,
      Array.from({ length: 1200 }, (_, i) => `http://docs.test/page?id=${i}`),
    );
    addUrls(
      db,
      Array.from({ length: 5 }, (_, i) => `http://docs.test/other/${i}`),
    );
    const count = async (pattern: string) => {
      const answer = await post('/api/live/preview', { pattern });
      return { status: answer.status, ...JSON.parse(answer.body) };
    };
    expect(await count('/other/')).toMatchObject({ status: 200, matches: 5, cut: false });
    expect(await count('[?&]id=1\\d\\d$')).toMatchObject({ status: 200, matches: 100, cut: false });
    expect(await count('[?&]id=')).toMatchObject({ status: 200, matches: 1000, cut: true });
    // One queued URL on which this pattern backtracks for ever: its process is killed at the deadline.
    addUrls(db, [`http://docs.test/${'a'.repeat(64)}!`]);
    const endless = await count('^http://docs\\.test/(a+)+$');
    expect(endless.status).toBe(422);
    expect(endless.error).toMatch(/longer than 1500 ms/);
    // A preview is guarded as a control is, and writes nothing.
    expect((await post('/api/live/preview', { pattern: 'x' }, without('x-crawlite-token'))).status).toBe(403);
    expect((await post('/api/live/preview', { pattern: '(' })).status).toBe(400);
  }, 30_000);
});
