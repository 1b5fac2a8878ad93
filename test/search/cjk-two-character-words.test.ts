// Chinese and Japanese words of one or two characters (竹林, 東京, 天気, 都), written in running text without
// spaces, are found by `crawlite search` as typed, with a snippet of the page's own text; they stay found
// after `crawlite compact`, a merge, and `crawlite reindex` of an archive whose pages have no CJK words yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alteredCopy } from '../support/altered-archive.js';
import { readArchive, tempDir, UNDO_SCHEMA_19 } from '../support/archive.js';
import { copyArchive } from '../support/copy-archive.js';
import { execCli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/test-server.js';

const page = (lang: string, title: string, text: string, links = '') =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title></head><body><main><p>${text}</p>${links}</main></body></html>`;

const PAGES: Record<string, string> = {
  '/': page(
    'en',
    'Home',
    'Pages in three languages.',
    '<a href="/zh">zh</a> <a href="/ja">ja</a> <a href="/ja2">ja2</a> <a href="/en">en</a>',
  ),
  '/zh': page('zh', '山中散记', '我们在山上的竹林里散步，看见很多竹子。风吹过的时候，叶子沙沙作响。'),
  '/ja': page('ja', '今日の予報', '今日の東京都は晴れですが明日の天気は雨になるでしょう。傘を持って出かけてください。'),
  '/ja2': page('ja', '大阪だより', '大阪の天気は曇りです。週末には公園を散歩する予定です。'),
  '/en': page('en', 'Weather', 'The weather in Tokyo and the bamboo grove.'),
};

/** A page that changes between crawls: its words go with the text it had. */
let news = page('zh', '新闻', '今天我们去竹林看熊猫。');

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');

interface Hit {
  url: string;
  title: string;
  snippet: string;
}

async function search(file: string, query: string): Promise<Hit[]> {
  const run = await execCli(['search', file, query, '-f', 'json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Hit[];
}

const paths = (hits: Hit[]) => hits.map((hit) => new URL(hit.url).pathname).sort();

/** What each two-character word finds, and the snippet marks it in the page's own text (no mark of the segmentation left). */
async function expectWordsFound(file: string): Promise<void> {
  const bamboo = await search(file, '竹林');
  expect(paths(bamboo)).toEqual(['/zh']);
  expect(bamboo[0]!.snippet).toContain('我们在山上的[竹林]里散步');
  expect(bamboo[0]!.snippet).not.toContain('\u200b');
  const tokyo = await search(file, '東京');
  expect(paths(tokyo)).toEqual(['/ja']);
  expect(tokyo[0]!.snippet).toContain('今日の[東京]都は晴れですが');
  const weather = await search(file, '天気');
  expect(paths(weather)).toEqual(['/ja', '/ja2']);
  expect(weather.map((hit) => hit.snippet).join(' ')).toContain('大阪の[天気]は曇りです');
}

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    const html = path === '/news' ? news : PAGES[path];
    if (html === undefined) return res.writeHead(404).end('not found');
    return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  const run = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(run.code, run.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('crawlite search of CJK words', () => {
  it('finds each two-character word on the pages that have it, with a snippet, and not on the others', async () => {
    await expectWordsFound(db);
    expect(await search(db, '竹子')).toHaveLength(1);
    // A word no page has, though both its characters are on pages; every page is indexed, so no word of reindex either.
    const none = await execCli(['search', db, '京天']);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, expect.stringContaining('(0 rows)'), '']);
  });

  it('finds a one-character word, and a typed longer term segmented as the pages were (東京都 is 東京 都)', async () => {
    expect(paths(await search(db, '都'))).toEqual(['/ja']);
    expect(paths(await search(db, '東京都 天気'))).toEqual(['/ja']);
    expect(paths(await search(db, '"東京都の天気"'))).toEqual([]);
  });

  it('keeps substrings of 3 characters or more on the trigram index, and Latin words on the word index', async () => {
    expect(paths(await search(db, '京都は晴'))).toEqual(['/ja']);
    expect(paths(await search(db, 'bamboo'))).toEqual(['/en']);
  });

  it('forgets the words a page no longer has when it is crawled again, compact or not', async () => {
    for (const compact of [false, true]) {
      news = page('zh', '新闻', '今天我们去竹林看熊猫。');
      const file = tmp.path(`recrawl-${compact}.sqlite`);
      const first = await execCli(['crawl', `${server.url}news`, '--db', file, '-q', ...(compact ? ['--compact'] : [])]);
      expect(first.code, first.stderr).toBe(0);
      expect(paths(await search(file, '熊猫'))).toEqual(['/news']);
      news = page('en', 'News', 'Nothing about bamboo today.');
      const again = await execCli(['recrawl', file, '-q']);
      expect(again.code, again.stderr).toBe(0);
      expect(await search(file, '熊猫')).toEqual([]);
      expect(await search(file, '竹林')).toEqual([]);
      expect(paths(await search(file, 'bamboo'))).toEqual(['/news']);
    }
  });

  it('keeps them after crawlite compact', async () => {
    const compact = tmp.path('compact.sqlite');
    copyArchive(db, compact);
    const run = await execCli(['compact', compact]);
    expect(run.code, run.stderr).toBe(0);
    expect(readArchive(compact, "SELECT type FROM sqlite_schema WHERE name = 'page_text'")).toEqual([{ type: 'view' }]);
    await expectWordsFound(compact);
  });

  it('keeps them through a merge of two archives of the site', async () => {
    const a = tmp.path('a.sqlite');
    const b = tmp.path('b.sqlite');
    const merged = tmp.path('merged.sqlite');
    for (const [file, exclude] of [
      [a, '/ja'],
      [b, '/zh'],
    ] as const) {
      const run = await execCli(['crawl', server.url, '--db', file, '-q', '--exclude', exclude]);
      expect(run.code, run.stderr).toBe(0);
    }
    const run = await execCli(['merge', a, b, '--db', merged]);
    expect(run.code, run.stderr).toBe(0);
    await expectWordsFound(merged);
  });

  it('crawlite reindex gives them to an archive whose pages were stored before there were CJK words', async () => {
    // An archive of a crawlite before CJK words: opened, it gets the index (migration 0019), empty.
    const older = alteredCopy(db, tmp.path('older.sqlite'), UNDO_SCHEMA_19);
    const before = await execCli(['search', older, '東京']);
    expect(before.stdout).toContain('(0 rows)');
    expect(before.stderr).toBe(`crawlite: 3 HTML pages have no text in the search index; run crawlite reindex ${older}\n`);
    const run = await execCli(['reindex', older]);
    expect(run.code, run.stderr).toBe(0);
    await expectWordsFound(older);
    expect(readArchive(older, 'SELECT count(*) AS n FROM page_text_cjk_words')).toEqual([{ n: 3 }]);
  });
});
