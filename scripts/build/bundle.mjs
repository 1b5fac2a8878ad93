#!/usr/bin/env node
// Bundles the compiled CLI (dist/, from tsc) into dist/bundle/ with esbuild: the crawlite command,
// its worker threads (parse, crawl state, export's gzip) and its query process, each an entry point,
// with code split into shared chunks so a command loads only what it imports (--help and query never
// load the crawl's packages).
//
// Why: Node resolves, reads and compiles every file of every package at start-up; rxjs alone is
// several hundred files. One chunk per command loads in a fraction of that time, and start-up is
// a real share of a crawl of a small site. better-sqlite3 stays outside (a native addon).
//
// Workers and migrations are found relative to the module's own URL, so the entries keep the
// names and the depth that the code expects: dist/bundle/parse-worker.js, dist/bundle/query-worker.js,
// dist/bundle/gzip-worker.js, and ../../migrations from any chunk.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(REPO, 'dist', 'bundle');

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: REPO,
  entryPoints: {
    crawlite: 'dist/cli/bin.js',
    'parse-worker': 'dist/pipeline/parse/parse-worker.js',
    'query-worker': 'dist/storage/query/query-worker.js',
    'crawl-state-worker': 'dist/storage/crawl-state/crawl-state-worker.js',
    'gzip-worker': 'dist/export/gzip-worker.js',
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // playwright-core loads its own files at run time; it is imported only by crawl --browser.
  external: ['better-sqlite3', 'playwright-core'],
  chunkNames: 'chunk-[hash]',
  // Packages written as CommonJS call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __crawliteRequire } from 'node:module'; const require = __crawliteRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
// Which packages each output holds: read by the start-up test.
writeFileSync(join(OUT, 'meta.json'), JSON.stringify(result.metafile));
chmodSync(join(OUT, 'crawlite.js'), 0o755);
