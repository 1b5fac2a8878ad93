import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp, replayPath } from '../src/serve/replay-url.js';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { ChangingSite, type Served } from './support/changing-site.js';
import { startReplayServer, type ReplayServer } from './support/replay-server.js';
import { startServer, type TestServer } from './support/test-server.js';
import { sleep } from './support/wait.js';
import { readWarc } from './support/warc-read.js';

// A real crawl and re-crawl (no history made by hand): what diff, export and replay make of it.
const page = (title: string, text: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;

function answer(path: string, version: number): Served | undefined {
  switch (path) {
    case '/':
      return { body: page('index', 'the index', ['/same', '/changed']) };
    case '/same':
      return { body: page('same', 'nothing new here'), etag: '"same-1"' };
    case '/changed':
      return { body: page('changed', version === 1 ? 'the old wording' : 'the new wording'), etag: `"changed-${version}"` };
    default:
      return undefined;
  }
}

const site = new ChangingSite(answer);
let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');

beforeAll(async () => {
  server = await startServer(site.handle);
  expect((await execCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
  site.version = 2;
  // Replay tells captures apart by their 14-digit (one-second) timestamps.
  await sleep(1_100);
  const again = await execCli(['recrawl', db, '-q']);
  expect(again.code, again.stderr).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const url = (path: string) => new URL(path, server.url).href;

describe('a re-crawled archive read back', () => {
  it("diff lists what the changes view says, and shows the changed page's words", async () => {
    const listed = await execCli(['diff', db, '--all', '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { url: string; change: string }[]).map(({ url, change }) => ({ url, change }));
    expect(rows.sort((a, b) => a.url.localeCompare(b.url))).toEqual(readArchive(db, 'SELECT url, change FROM changes ORDER BY url'));
    expect(rows).toContainEqual({ url: url('/changed'), change: 'changed' });
    expect(rows).toContainEqual({ url: url('/same'), change: 'unchanged' });

    const words = await execCli(['diff', db, '--url', url('/changed')]);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(/^-.*the old wording/m);
    expect(words.stdout).toMatch(/^\+.*the new wording/m);
  });

  it("the WARC holds both captures of the changed page and the 304 as a revisit carrying its original's status", async () => {
    const warc = tmp.path('site.warc.gz');
    expect((await execCli(['export', db, '--warc', warc, '-q'])).code).toBe(0);
    const records = await readWarc(warc);
    const of = (path: string) =>
      records.filter((record) => record.field('WARC-Target-URI') === url(path) && record.type !== 'request' && record.type !== 'metadata');
    expect(of('/changed').map((record) => record.type)).toEqual(['response', 'response']);
    expect(of('/changed').map((record) => record.payload?.toString())).toEqual([answer('/changed', 1)!.body, answer('/changed', 2)!.body]);
    const same = of('/same');
    expect(same.map((record) => record.type)).toEqual(['response', 'revisit']);
    expect(same[1]!.field('WARC-Profile')).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    expect(same[1]!.httpStatus).toBe(200);
  });

  it('replay shows each capture at its own time', async () => {
    const replay: ReplayServer = await startReplayServer(db);
    try {
      const times = readArchive<{ fetched_at: string }>(
        db,
        'SELECT fetched_at FROM captures WHERE url = ? ORDER BY fetched_at',
        url('/changed'),
      ).map((row) => row.fetched_at);
      expect(times).toHaveLength(2);
      const bodies = await Promise.all(
        times.map(async (time) => (await fetch(replay.origin + replayPath(url('/changed'), captureTimestamp(time)))).text()),
      );
      expect(bodies[0]).toContain('the old wording');
      expect(bodies[1]).toContain('the new wording');
    } finally {
      await replay.close();
    }
  });
});
