// What full-text search costs and gives: `--text-cost` measures, on the synthetic site's pages, the CPU that
// text extraction adds to the parse and that page_text with its two FTS5 indexes adds to the commit, and
// the bytes they add to the archive; `--search` builds a large archive of synthetic text and times queries.
// Both run in this process against the built modules (dist/), with no HTTP in the way, so the figures are
// the added work alone (a crawl's own figures are noisier by far; compare `crawl` with and without --no-text
// for those).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { pageHtml, prng } from './site.mjs';

const dist = (repo, path) => import(pathToFileURL(join(repo, 'dist', path)).href);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

/** Bytes SQLite uses for the named tables and indexes (their b-trees, FTS shadow tables included). */
function bytesOf(db, like) {
  return db.prepare('SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name LIKE ?').get(like).n;
}

export async function measureTextCost(repo, dir, { pages, seed, log }) {
  // Builds before the HTML toolkit had a room of its own kept it under pipeline/.
  const { extractPage } = await dist(repo, 'html/index.js').catch(() => dist(repo, 'pipeline/html/extract-page.js'));
  const { openArchive, closeArchive } = await dist(repo, 'storage/archive/open-archive.js');
  const origin = 'http://127.0.0.1:8080';
  const htmls = Array.from({ length: pages }, (_, i) => pageHtml(i, pages, seed, origin));
  const htmlBytes = htmls.reduce((sum, html) => sum + Buffer.byteLength(html), 0);
  const noop = () => {};
  const parse = (text) => {
    const start = cpuMs();
    for (const html of htmls) extractPage(html, noop, { text });
    return (cpuMs() - start) / pages;
  };
  log(`bench: text cost: parsing ${pages} synthetic pages with and without text, 5 rounds each`);
  parse(true); // warm-up: JIT
  const without = [];
  const withText = [];
  for (let round = 0; round < 5; round += 1) {
    without.push(parse(false));
    withText.push(parse(true));
  }
  const texts = htmls.map((html) => extractPage(html, noop, { text: true }));

  const { PageTextWriter } = await dist(repo, 'storage/writer/page-text-writer.js');
  const db = openArchive(join(dir, 'text-cost.sqlite'), 'create');
  const writer = new PageTextWriter(db);
  const write = db.transaction((from, to) => {
    for (let i = from; i < to; i += 1) writer.store(i + 1, `${origin}/p/${i}`, texts[i].title ?? null, texts[i].text);
  });
  log('bench: text cost: writing page_text and both indexes, 200 pages per transaction');
  const start = cpuMs();
  const wall = performance.now();
  for (let from = 0; from < pages; from += 200) write(from, Math.min(pages, from + 200));
  const indexMs = (cpuMs() - start) / pages;
  const indexWallMs = (performance.now() - wall) / pages;
  const sizes = {
    pageText: bytesOf(db, 'page_text'),
    words: bytesOf(db, 'page_text_fts%'),
    trigram: bytesOf(db, 'page_text_trigram%'),
  };
  closeArchive(db);
  const textChars = texts.reduce((sum, { text }) => sum + text.body.length, 0);
  return {
    pages,
    htmlBytesPerPage: htmlBytes / pages,
    textCharsPerPage: textChars / pages,
    parseMsPerPage: { withoutText: median(without), withText: median(withText) },
    indexCpuMsPerPage: indexMs,
    indexWallMsPerPage: indexWallMs,
    bytesPerPage: { pageText: sizes.pageText / pages, wordIndex: sizes.words / pages, trigramIndex: sizes.trigram / pages },
  };
}

export function textCostLines(cost) {
  const { parseMsPerPage: parse, bytesPerPage: bytes } = cost;
  const total = bytes.pageText + bytes.wordIndex + bytes.trigramIndex;
  return [
    `text cost on ${cost.pages} synthetic pages (${(cost.htmlBytesPerPage / 1024).toFixed(1)} KiB of HTML, ${Math.round(cost.textCharsPerPage)} characters of text each):`,
    `- parse (one thread): ${parse.withoutText.toFixed(3)} ms/page without text, ${parse.withText.toFixed(3)} ms/page with it: +${(parse.withText - parse.withoutText).toFixed(3)} ms (+${(((parse.withText - parse.withoutText) / parse.withoutText) * 100).toFixed(0)}%)`,
    `- page_text and both indexes, written on the committing thread: ${cost.indexCpuMsPerPage.toFixed(3)} ms CPU/page (${cost.indexWallMsPerPage.toFixed(3)} ms wall)`,
    `- archive bytes per page: page_text ${Math.round(bytes.pageText)}, word index ${Math.round(bytes.wordIndex)}, trigram index ${Math.round(bytes.trigramIndex)}: ${Math.round(total)} in all (${((total / cost.htmlBytesPerPage) * 100).toFixed(0)}% of the HTML stored)`,
  ];
}

const WORDS =
  'archive harbour lighthouse quiet crawler index search river mountain station library garden winter summer market bridge island valley forest engine signal ' +
  'letter window paper orange silver copper stone water light sound music story table chair house street city country language history science';

/** A vocabulary of common words and many rarer made-up ones, so term frequencies spread as in real text. */
function vocabulary(rand) {
  const common = WORDS.split(' ');
  const rare = Array.from({ length: 20_000 }, () =>
    Array.from({ length: 4 + Math.floor(rand() * 6) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join(''),
  );
  return { common, rare };
}

const CJK = '数据搜索引擎网页存档中文检索系统文本分析信息世界历史科学技术语言城市';

export async function measureSearch(repo, dir, { pages, log }) {
  const { openArchive, closeArchive } = await dist(repo, 'storage/archive/open-archive.js');
  const { searchArchive } = await dist(repo, 'storage/query/search-archive.js');
  const path = join(dir, 'search.sqlite');
  const db = openArchive(path, 'create');
  const rand = prng(7);
  const { common, rare } = vocabulary(rand);
  const word = () => (rand() < 0.3 ? common[Math.floor(rand() * common.length)] : rare[Math.floor(rand() * rare.length)]);
  log(`bench: search: writing ${pages} pages of synthetic text (about 150 words each, 1 in 10 with Chinese)`);
  const built = performance.now();
  db.exec("INSERT INTO run (started_at, options) VALUES ('2026-01-01T00:00:00.000Z', '{}')");
  const bodyId = db.prepare("INSERT INTO body (hash, size, data) VALUES (randomblob(32), 0, x'')").run().lastInsertRowid;
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${pages})
           INSERT INTO url (id, url, origin, kind, state, depth, redirect_hops) SELECT i, 'http://bench.test/p/' || i, 'http://bench.test', 'page', 'done', 1, 0 FROM n`);
  db.prepare(
    `INSERT INTO response (url_id, run_id, status, content_type, charset, headers, body_id, fetched_at, elapsed_ms, links_found, links_new)
              SELECT id, 1, 200, 'text/html', 'utf-8', '{}', ?, '2026-01-01T00:00:00.000Z', 1, 0, 0 FROM url`,
  ).run(bodyId);
  const { PageTextWriter } = await dist(repo, 'storage/writer/page-text-writer.js');
  const writer = new PageTextWriter(db);
  const write = db.transaction((from, to) => {
    for (let i = from; i <= to; i += 1) {
      const sentence = () => Array.from({ length: 12 }, word).join(' ') + '.';
      let body = Array.from({ length: 12 }, sentence).join(' ');
      if (rand() < 0.1) body += ' ' + Array.from({ length: 20 }, () => CJK[Math.floor(rand() * CJK.length)]).join('');
      writer.store(i, `http://bench.test/p/${i}`, `${word()} ${word()} ${word()}`, {
        body,
        headings: `${word()} ${word()}`,
        linkShare: rand() * 0.3,
        version: 3,
      });
    }
  });
  for (let from = 1; from <= pages; from += 1000) write(from, Math.min(pages, from + 999));
  const buildS = (performance.now() - built) / 1000;
  const sizes = { pageText: bytesOf(db, 'page_text'), words: bytesOf(db, 'page_text_fts%'), trigram: bytesOf(db, 'page_text_trigram%') };
  closeArchive(db);

  const Database = (await import('better-sqlite3')).default;
  const reader = new Database(path, { readonly: true });
  // FTS5's syntax (mode 'fts'), for the prefix: the other queries read the same either way. As typed (the
  // default of `search`, serve and the library), the first pages' sections are scored too: the rows marked so.
  const queries = [
    ['a word', 'lighthouse'],
    ['a word, as typed', 'lighthouse', 'typed'],
    ['two words, as typed', 'quiet harbour', 'typed'],
    ['a rare word', rare[123]],
    ['a phrase', '"quiet harbour"'],
    ['a prefix', 'light*'],
    ['CJK substring (trigram)', '搜索引'],
    ['CJK, 4 characters (trigram)', '数据搜索'],
  ];
  const results = [];
  for (const [name, query, mode = 'fts'] of queries) {
    const times = [];
    let hits = 0;
    for (let run = 0; run < 30; run += 1) {
      const start = performance.now();
      hits = searchArchive(reader, query, { limit: 20, mode }).length;
      times.push(performance.now() - start);
    }
    results.push({ name, query, hits, medianMs: median(times), p95Ms: percentile(times, 95) });
  }
  reader.close();
  return { pages, buildS, fileBytes: statSync(path).size, sizes, queries: results };
}

export function searchLines(result) {
  const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  return [
    `search on ${result.pages.toLocaleString('en-US')} pages: built in ${result.buildS.toFixed(0)} s; archive ${mib(result.fileBytes)} (page_text ${mib(result.sizes.pageText)}, word index ${mib(result.sizes.words)}, trigram index ${mib(result.sizes.trigram)})`,
    '| query | hits (limit 20) | median ms | p95 ms |',
    '|:--|--:|--:|--:|',
    ...result.queries.map((q) => `| ${q.name}: \`${q.query}\` | ${q.hits} | ${q.medianMs.toFixed(2)} | ${q.p95Ms.toFixed(2)} |`),
  ];
}
