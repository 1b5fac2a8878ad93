#!/usr/bin/env node
// Micro-benchmark of link normalisation as a crawl does it: per page, each distinct spelling
// (fragment cut off) resolved once against the page. Compares the WHATWG path (normalizeUrl)
// with LinkResolver. Run after `npm run build`:
//   node scripts/links/bench-normalize.mjs [html-dir] [other-dist-dir]
// html-dir defaults to the Python docs (Debian python3.11-doc), else test/fixtures/hrefs.json is used;
// other-dist-dir (a build of another commit) adds a row for its normalizeUrl.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractPage } from '../../dist/html/index.js';
import { LinkResolver, normalizeUrl } from '../../dist/url/index.js';
import { walk } from './walk-files.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = process.argv[2] ?? '/usr/share/doc/python3.11/html';
const OTHER = process.argv[3];
const ROUNDS = 15;

/** [base, distinct raw hrefs] per page. */
function pages() {
  if (!existsSync(DOCS)) {
    return JSON.parse(readFileSync(join(REPO, 'test', 'fixtures', 'hrefs.json'), 'utf8')).map(([base, hrefs]) => [
      base,
      [...new Set(hrefs.map((h) => h.split('#', 1)[0]))],
    ]);
  }
  return walk(DOCS, '.html').map((file) => {
    const raw = new Set();
    extractPage(readFileSync(file, 'utf8'), (href) => raw.add(href.split('#', 1)[0]));
    return ['http://127.0.0.1:8000/' + relative(DOCS, file), [...raw]];
  });
}

const corpus = pages();
const links = corpus.reduce((n, [, hrefs]) => n + hrefs.length, 0);
const rows = {
  'normalizeUrl (WHATWG)': (base, hrefs) => {
    for (const href of hrefs) normalizeUrl(href, base);
  },
  LinkResolver: (base, hrefs) => {
    const resolver = new LinkResolver(base);
    for (const href of hrefs) resolver.normalize(href);
  },
};
if (OTHER) {
  // Builds before the URL toolkit had a room of its own kept it under pipeline/.
  const entry = existsSync(join(resolve(OTHER), 'url')) ? join('url', 'index.js') : join('pipeline', 'normalize-url.js');
  const other = await import(pathToFileURL(join(resolve(OTHER), entry)).href);
  rows[`normalizeUrl of ${OTHER}`] = (base, hrefs) => {
    for (const href of hrefs) other.normalizeUrl(href, base);
  };
}

// Interleaved rounds, median per row, CPU time (the machine is shared).
const times = Object.fromEntries(Object.keys(rows).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(rows)) {
    const start = process.cpuUsage();
    for (const [base, hrefs] of corpus) run(base, hrefs);
    const used = process.cpuUsage(start);
    times[name].push((used.user + used.system) / 1000);
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
console.log(`${corpus.length} pages, ${links} distinct links per page in all; median CPU ms of ${ROUNDS} rounds (first ones warm up)`);
const reference = median(times['normalizeUrl (WHATWG)']);
for (const [name, xs] of Object.entries(times)) {
  const ms = median(xs);
  console.log(
    `${name.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms  ${((ms * 1e6) / links).toFixed(0).padStart(6)} ns/link  ${(reference / ms).toFixed(2)}x`,
  );
}
