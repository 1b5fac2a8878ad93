#!/usr/bin/env node
// Micro-benchmark of what parsing an HTML page costs the crawler, stage by stage, as parse-page.ts
// runs it: decode (charset sniffing included), find <base>, scan the page, admit each link
// (normalisation included); then, apart, the same scan with the page's text collected (`text`,
// as a crawl with search does; links not collected). Every page of a directory of HTML, served as `text/html` without a
// charset. Run after `npm run build`:
//   node scripts/links/bench-parse.mjs [html-dir] [other-dist-dir]
// other-dist-dir (a build of another commit) is measured in the same interleaved rounds.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { walk } from './walk-files.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = process.argv[2] ?? '/usr/share/doc/python3.11/html';
const DISTS = { this: join(REPO, 'dist'), ...(process.argv[3] ? { other: resolve(process.argv[3]) } : {}) };
const ROUNDS = 10;

const pages = walk(DOCS, '.html').map((file) => ({
  url: 'http://127.0.0.1:8000/' + relative(DOCS, file),
  body: new Uint8Array(readFileSync(file)),
}));
const megabytes = pages.reduce((n, page) => n + page.body.length, 0) / 1e6;

async function load(dist) {
  const imp = (path) => import(pathToFileURL(join(dist, path)).href);
  // Builds before the HTML toolkit had a room of its own kept it under pipeline/.
  const html = existsSync(join(dist, 'html')) ? 'html/index.js' : 'pipeline/html/extract-page.js';
  const sniff = existsSync(join(dist, 'html')) ? 'html/index.js' : 'pipeline/html/sniff-charset.js';
  const [{ decodeHtml }, { extractPage, findBase }, { LinkBudget }] = await Promise.all([
    imp(sniff),
    imp(html),
    imp('pipeline/link-budget.js'),
  ]);
  return { decodeHtml, extractPage, findBase, LinkBudget };
}

const modules = Object.fromEntries(await Promise.all(Object.entries(DISTS).map(async ([name, dist]) => [name, await load(dist)])));
const stages = ['decode', 'findBase', 'extractPage', 'admit', 'text'];
/** name -> stage -> CPU ms per round */
const times = Object.fromEntries(Object.keys(modules).map((name) => [name, Object.fromEntries(stages.map((stage) => [stage, []]))]));
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

for (let round = 0; round < ROUNDS; round++) {
  // Alternating which build goes first, so neither always pays for the other's garbage.
  const order = round % 2 ? Object.entries(modules).reverse() : Object.entries(modules);
  for (const [name, m] of order) {
    const spent = { decode: 0, findBase: 0, extractPage: 0, admit: 0, text: 0 };
    const texts = [];
    let t = cpu();
    for (const page of pages) texts.push(m.decodeHtml(page.body, 'text/html').text);
    spent.decode = cpu() - t;
    t = cpu();
    for (const text of texts) m.findBase(text);
    spent.findBase = cpu() - t;
    // The scan with links only collected, then the same links admitted, so the two are told apart.
    const found = [];
    t = cpu();
    for (const text of texts) {
      const hrefs = [];
      m.extractPage(text, (href) => hrefs.push(href));
      found.push(hrefs);
    }
    spent.extractPage = cpu() - t;
    t = cpu();
    for (let i = 0; i < pages.length; i++) {
      const budget = new m.LinkBudget(pages[i].url, 0);
      for (const href of found[i]) budget.admit(href);
    }
    spent.admit = cpu() - t;
    t = cpu();
    for (const text of texts) m.extractPage(text, () => {}, { text: true });
    spent.text = cpu() - t;
    for (const stage of stages) times[name][stage].push(spent[stage]);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`${pages.length} pages, ${megabytes.toFixed(1)} MB; median CPU ms of ${ROUNDS} interleaved rounds`);
console.log(
  `${'stage'.padEnd(12)} ${Object.keys(modules)
    .map((name) => name.padStart(10))
    .join(' ')}${DISTS.other ? '   other/this' : ''}`,
);
for (const stage of [...stages.filter((s) => s !== 'text'), 'total', 'text']) {
  // The text stage repeats the scan, so the total is of the crawl's stages without it.
  const ms = Object.keys(modules).map((name) =>
    stage === 'total' ? stages.filter((s) => s !== 'text').reduce((n, s) => n + median(times[name][s]), 0) : median(times[name][stage]),
  );
  console.log(
    `${stage.padEnd(12)} ${ms.map((x) => x.toFixed(1).padStart(10)).join(' ')}${ms.length > 1 ? `   ${(ms[1] / ms[0]).toFixed(2)}x` : ''}`,
  );
}
