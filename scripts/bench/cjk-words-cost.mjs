// What the CJK words index (migration 0019) costs: `node scripts/bench/cjk-words-cost.mjs [--pages N]
// [--chars C] [--base REPO]`, against the built modules (dist/; `npm run build` first). On Chinese and
// Japanese pages of real-looking text (cjk-corpus.mjs) it measures the CPU of segmenting a page, of writing
// its page_text row with every index, and the bytes of each index; on the synthetic site's (Latin) pages, the
// commit's CPU, here and, with --base, in another checkout's build (its writer has no CJK words to look up).
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cjkPage, JA_SENTENCES, ZH_SENTENCES } from './cjk-corpus.mjs';
import { pageHtml } from './site.mjs';

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '300' }, chars: { type: 'string', default: '15000' }, base: { type: 'string' } },
});
const pages = Number(values.pages);
const chars = Number(values.chars);
const repo = new URL('../..', import.meta.url).pathname;
const dist = (from, path) => import(pathToFileURL(join(from, 'dist', path)).href);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bytesOf = (db, like) => db.prepare('SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name LIKE ?').get(like).n;
const dir = mkdtempSync(join(tmpdir(), 'cjk-words-cost-'));

/** CPU ms per page of `fn` over the pages, the median of 5 rounds after a warm-up. */
function perPage(list, fn) {
  fn(list[0]);
  const rounds = [];
  for (let round = 0; round < 5; round += 1) {
    const start = cpuMs();
    for (const item of list) fn(item);
    rounds.push((cpuMs() - start) / list.length);
  }
  return median(rounds);
}

/** page_text rows (and every index, through the writer) for the texts, 200 per transaction: CPU ms per page and the archive. */
async function writeAll(from, name, texts) {
  const { openArchive } = await dist(from, 'storage/archive/open-archive.js');
  const { PageTextWriter } = await dist(from, 'storage/writer/page-text-writer.js');
  const db = openArchive(join(dir, name), 'create');
  const writer = new PageTextWriter(db);
  const write = db.transaction((start, end) => {
    for (let i = start; i < end; i += 1) writer.store(i + 1, `http://127.0.0.1/p/${i}`, texts[i].title, texts[i].text);
  });
  const start = cpuMs();
  for (let i = 0; i < texts.length; i += 200) write(i, Math.min(texts.length, i + 200));
  return { ms: (cpuMs() - start) / texts.length, db };
}

const { cjkWords } = await dist(repo, 'text/index.js');
const { closeArchive } = await dist(repo, 'storage/archive/open-archive.js');
const lines = [];
for (const [language, sentences] of [
  ['Chinese', ZH_SENTENCES],
  ['Japanese', JA_SENTENCES],
]) {
  const texts = Array.from({ length: pages }, (_, i) => {
    const { title, body } = cjkPage(sentences, i, chars);
    return { title, text: { body, headings: '', version: 2 } };
  });
  const segmentMs = perPage(texts, ({ text }) => cjkWords(text.body));
  const { ms, db } = await writeAll(repo, `${language}.sqlite`, texts);
  const size = (like) => bytesOf(db, like) / pages;
  const words = (texts.map(({ text }) => cjkWords(text.body).split('\u200b').length).reduce((a, b) => a + b, 0) / pages) | 0;
  lines.push(
    `${language}, ${pages} pages of ${chars} characters (${words} words each): segmenting ${segmentMs.toFixed(2)} ms CPU/page; ` +
      `page_text with all three indexes ${ms.toFixed(2)} ms CPU/page; bytes/page: page_text ${Math.round(size('page_text'))}, ` +
      `word index ${Math.round(size('page_text_fts%'))}, trigram ${Math.round(size('page_text_trigram%'))}, CJK words ${Math.round(size('page_text_cjk_words%'))}`,
  );
  closeArchive(db);
}

// Latin pages: the synthetic site's text, written here and by --base.
const { extractPage } = await dist(repo, 'html/index.js');
const latin = Array.from({ length: pages * 4 }, (_, i) =>
  extractPage(pageHtml(i, pages * 4, 1, 'http://127.0.0.1'), () => {}, { text: true }),
);
const latinTexts = latin.map(({ title, text }) => ({ title: title ?? null, text }));
for (const [label, from] of [['this build', repo], ...(values.base ? [['--base', values.base]] : [])]) {
  const runs = [];
  for (let run = 0; run < 5; run += 1) {
    const { ms, db } = await writeAll(from, `latin-${label.replace(/\W/g, '')}-${run}.sqlite`, latinTexts);
    runs.push(ms);
    closeArchive(db);
  }
  lines.push(
    `Latin (synthetic), ${latinTexts.length} pages, ${label}: page_text and its indexes ${median(runs).toFixed(3)} ms CPU/page (median of 5)`,
  );
}
rmSync(dir, { recursive: true, force: true });
console.log(lines.join('\n'));
