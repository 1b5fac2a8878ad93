#!/usr/bin/env node
// crawlite throughput bench: the raw HTTP ceiling, crawlite, wget2 and wget side by side, in one run,
// against a site on 127.0.0.1: static files served by nginx (the synthetic site written to disk, or the
// Python docs), or the synthetic site from a Node child process (latency mode). `--suite` runs the four
// reference cases and prints one summary table with the targets. See scripts/bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { findPythonDocs, pageKey, PYTHON_DOCS_DIR, PYTHON_DOCS_INSTALL, reachableHtml, writeSyntheticSite } from './corpus.mjs';
import { archiveIoLine, measureArchiveIo } from './archive-io.mjs';
import { crawlThenMarkdown, markdownLine, measureMarkdownPass } from './markdown-pass.mjs';
import { archiveSize, breakdownLines, KB, measureSizes, sizeLines } from './archive-size.mjs';
import { cleanupNow, makeTemp, measureChild, removeTemp, SAMPLE_MS, timeTool, which } from './measure.mjs';
import { findNginx, freePort, NGINX_INSTALL, startNginx } from './nginx.mjs';
import { caseTable, fixed, grouped, summarize, suiteTable } from './report.mjs';
import { startSiteChild } from './site-child.mjs';
import { siteUrls } from './site.mjs';
import { measureSearch, measureTextCost, searchLines, textCostLines } from './search-cost.mjs';
import { measureRecrawlGrowth, recrawlGrowthLines } from './recrawl-growth.mjs';
import { measureWorkers, WORKERS_MISSING, workersLines } from './workers.mjs';
import { browserLines, browserMissing, measureBrowser } from './browser.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const CRAWLITE_BIN = join(REPO, 'dist', 'bundle', 'crawlite.js');
const STACK_FLOOR = join(HERE, 'stack-floor.mjs');
const WARMUP_REQUESTS = 500;
/** Load average per CPU above which the machine is called busy (the bench itself adds about 1). */
const BUSY_LOAD = 0.75;
const ROWS = ['wget2', 'wget', 'floor'];

const HELP = `npm run bench -- [options]

Measures, side by side in one run, against a site on 127.0.0.1:
  raw       undici fetching the site's URL list with exactly C requests in flight (the ceiling)
  crawlite  dist/bundle/crawlite.js crawl <root> --db <tmp> -c C -q   (the installed crawlite command,
            run through its #! line)
  wget2     wget2 -r -l inf -np --max-threads=C -nd -q -P <tmp> <root>   (if installed)
  wget      wget -r -l inf -np -nd -q -P <tmp> <root>, one connection  (if installed; not in latency mode)
  floor     node --max-semi-space-size=4 scripts/bench/stack-floor.mjs <root> --db <tmp> -c C: the stack
            floor, the essential work of a crawl (fetch, parse links and text, hash, store, index) on
            crawlite's stack in one thread, with no crash safety, resume, politeness or scope rules
            (127.0.0.1 sites only; --skip floor leaves it out)

  --suite                the five reference cases in one go, one summary table and the targets:
                         Python docs (nginx, C=16) and synthetic 20000 pages (nginx, C=16), each also
                         with --no-text, --compact and --markdown rows and --sizes; 2000 pages static at C=64 (Node
                         server: CPU per page without latency), 2000 pages with 50 ms latency at C=16 and
                         at C=64 (Node server)
  --with-100k            with --suite: a sixth case, 100000 synthetic pages (nginx, C=16) with --sizes and
                         --compact-row (raw, crawlite, crawlite --compact; about 10 minutes more)

Options:
  --corpus synthetic|python-docs  the site (default synthetic); python-docs serves ${PYTHON_DOCS_DIR}
                         (${PYTHON_DOCS_INSTALL}) with nginx, crawled from /index.html
  --corpus-dir DIR       where the Python docs are (default ${PYTHON_DOCS_DIR})
  --server nginx|node    who serves the synthetic site: nginx from files written to a temp dir (default in
                         static mode when nginx is installed; ${NGINX_INSTALL}) or a Node child process
                         (always in latency mode: nginx has no per-response delay)
  --pages N              pages of the synthetic site (default 20000)
  -c, --concurrency C    requests in flight for every row (default 16)
  --mode static|latency  how the site answers (default static)
  --latency MS           fixed delay per response in latency mode (default 50; implies --mode latency)
  --url ROOT             bench a site you name instead: crawlite first, then the raw row fetches exactly the
                         URLs crawlite stored, then wget2/wget
  --runs K               repeat every row K times and report medians (default 1)
  --skip ROWS            comma-separated rows to leave out: wget2, wget, floor, or none (default: wget in
                         latency mode, where it takes pages x latency; nothing otherwise)
  --seed S               seed of the synthetic site (default 1)
  --row-timeout S        a row still running after S seconds is stopped and reported as such (default 900,
                         or 45 ms per page above 20000 pages: 4500 at 100000)
  --archive-io           after the crawl, time \`crawlite export --warc\` of its archive (MiB of bodies per second)
                         and \`crawlite import\` of that WARC (pages per second); the suite does this for its
                         two static cases
  --markdown-row         add rows: crawlite + markdown (the crawl, then \`crawlite markdown\` of its archive, which
                         gives every HTML page its Markdown: the crawl's pages over both commands' wall time)
                         and crawlite markdown alone (its pages/s, CPU per page and peak RSS), run on a copy
                         of the crawlite row's archive; the suite does this for its two static nginx cases
  --no-text-row          add rows: crawlite --no-text (no text extraction, no search index) and stack floor
                         --no-text, to read what search costs a crawl: pages/s, CPU ms/page and archive MB
  --compact-row          add a row: crawlite --compact (bodies zlib-compressed on the parse threads), run right
                         after the plain crawlite row of each run: pages/s, CPU ms/page and archive MB
  --sizes                size rows: the crawlite archive (and the --no-text one with --no-text-row) as
                         crawled, its own \`crawlite export --warc\` .warc.gz, then \`crawlite compact\` of it
                         (wall and CPU) and its size after; the --compact crawl's size with --compact-row;
                         bytes per page, compact / .warc.gz, and where the bytes are (dbstat, grouped: on
                         stderr and in --json). MB and KB here are 10^6 and 10^3 bytes
  --text-cost            instead: what full-text search adds per page, on --pages (default 5000) synthetic
                         pages parsed and indexed in this process: parse CPU with and without text, CPU to
                         write page_text and its two FTS5 indexes, and their bytes in the archive
  --search               instead: build an archive of --pages (default 100000) pages of synthetic text and
                         time searches (a word, a phrase, a prefix, a CJK substring): median and p95
  --recrawl-growth       instead: crawl --pages (default 10000) synthetic pages with ETags on most, then re-crawl
                         them --recrawls times (default 10) with 2% of the pages changed before each; the
                         archive's size after each and what each re-crawl added (per changed page, per capture)
  --workers N,N,...      instead: scale-out throughput: the synthetic site (--pages, default 3000) from a Node
                         child process with --latency MS per response (default 50), crawled by 1, 2 and 4
                         (or the counts given) \`crawlite worker\` processes of -c C each (default 8) on a
                         throwaway PostgreSQL cluster, and by one \`crawlite crawl\` with the most workers'
                         requests in flight together; then the largest row's shards merged (needs postgresql)
  --browser              instead: what \`crawl --browser\` costs against a plain crawl of the same site, -c C
                         (default 4) for both, one run each: the Python docs (nginx; all pages, or --pages N
                         of them) and a script-built site from a Node child process (--pages N item pages,
                         default 500, in list pages of 50 whose links, and the items' text, come from JSON);
                         pages/s, CPU per page of crawlite and of Chromium, peak RSS/PSS of the process tree,
                         its peak in the first and last quarter of the pages, Chromium launches;
                         --corpus python-docs|script runs one case (needs chromium; nginx for the docs)
  --json                 print one JSON object instead of the table
  -h, --help             this text

Build crawlite first (npm run build). Figures are whole-process; read them as ratios within one run.`;

// ---------------------------------------------------------------------------------------------
// options

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      suite: { type: 'boolean', default: false },
      corpus: { type: 'string' },
      'corpus-dir': { type: 'string' },
      server: { type: 'string' },
      pages: { type: 'string' },
      concurrency: { type: 'string', short: 'c' },
      mode: { type: 'string' },
      latency: { type: 'string' },
      url: { type: 'string' },
      runs: { type: 'string' },
      skip: { type: 'string' },
      seed: { type: 'string' },
      'row-timeout': { type: 'string' },
      json: { type: 'boolean', default: false },
      'archive-io': { type: 'boolean', default: false },
      'no-text-row': { type: 'boolean', default: false },
      'markdown-row': { type: 'boolean', default: false },
      'compact-row': { type: 'boolean', default: false },
      sizes: { type: 'boolean', default: false },
      'with-100k': { type: 'boolean', default: false },
      'text-cost': { type: 'boolean', default: false },
      search: { type: 'boolean', default: false },
      'recrawl-growth': { type: 'boolean', default: false },
      recrawls: { type: 'string' },
      workers: { type: 'string' },
      browser: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: false,
  });
} catch (error) {
  fail(`${error.message}\n\n${HELP}`);
}
const given = parsed.values;
if (given.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

function intOption(name, fallback, min, max) {
  const raw = given[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max)
    fail(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

function skipOption() {
  if (given.skip === undefined) return undefined; // the mode's default
  const rows = given.skip
    .split(',')
    .map((row) => row.trim())
    .filter(Boolean);
  if (rows.length === 1 && rows[0] === 'none') return new Set();
  for (const row of rows) if (!ROWS.includes(row)) fail(`--skip takes wget2, wget, floor or none, not ${JSON.stringify(row)}`);
  return new Set(rows);
}

/** The default row timeout: 900 s, and more for a site above 20,000 pages (a 100,000-page crawl takes minutes). */
const rowTimeoutFor = (pages) => (given['row-timeout'] !== undefined ? common.rowTimeoutS : Math.max(900, Math.ceil(pages * 0.045)));

const common = {
  runs: intOption('runs', 1, 1, 25),
  rowTimeoutS: intOption('row-timeout', 900, 1, 86_400),
  corpusDir: resolve(given['corpus-dir'] ?? PYTHON_DOCS_DIR),
  json: given.json,
  skip: skipOption(),
};

if (given['with-100k'] && !given.suite) fail('--with-100k goes with --suite (for one case: --pages 100000 --sizes --compact-row)');
if (given.sizes && given.suite) fail('--sizes cannot go with --suite, which measures sizes in its docs and synthetic cases');

let single;
if (given.suite || given.workers !== undefined || given.browser) {
  if (given.suite && given.workers !== undefined) fail('--workers cannot go with --suite');
  if (given.suite)
    for (const name of ['corpus', 'server', 'pages', 'concurrency', 'mode', 'latency', 'url', 'seed'])
      if (given[name] !== undefined) fail(`--${name} cannot go with --suite, which fixes its cases`);
} else {
  const mode = given.mode ?? (given.latency !== undefined ? 'latency' : 'static');
  const corpus = given.corpus ?? 'synthetic';
  if (!['static', 'latency'].includes(mode)) fail(`--mode must be static or latency, not ${JSON.stringify(mode)}`);
  if (!['synthetic', 'python-docs'].includes(corpus)) fail(`--corpus must be synthetic or python-docs, not ${JSON.stringify(corpus)}`);
  if (given.server !== undefined && !['nginx', 'node'].includes(given.server))
    fail(`--server must be nginx or node, not ${JSON.stringify(given.server)}`);
  if (mode === 'static' && given.latency !== undefined) fail('--latency needs --mode latency (or no --mode)');
  if (mode === 'latency' && given.server === 'nginx') fail('--mode latency needs --server node: nginx has no per-response delay');
  if (corpus === 'python-docs') {
    for (const name of ['pages', 'mode', 'latency', 'seed'])
      if (given[name] !== undefined) fail(`--${name} is for the synthetic site; it cannot go with --corpus python-docs`);
    if (given.server === 'node') fail('--corpus python-docs is served by nginx');
  }
  single = {
    corpus,
    mode,
    server: given.server,
    pages: intOption('pages', 20_000, 1, 2_000_000),
    concurrency: intOption('concurrency', 16, 1, 1024),
    seed: intOption('seed', 1, 0, 2 ** 32 - 1),
    latencyMs: mode === 'latency' ? intOption('latency', 50, 0, 60_000) : 0,
    url: undefined,
    archiveIo: given['archive-io'],
    noTextRow: given['no-text-row'],
    markdownRow: given['markdown-row'],
    compactRow: given['compact-row'],
    sizes: given.sizes,
  };
  single.rowTimeoutS = rowTimeoutFor(corpus === 'synthetic' && given.url === undefined ? single.pages : 0);
  if (given.url !== undefined) {
    let root;
    try {
      root = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(given.url) ? given.url : `http://${given.url}`);
    } catch {
      fail(`--url ${JSON.stringify(given.url)} is not a URL`);
    }
    if (!['http:', 'https:'].includes(root.protocol)) fail('--url must be http or https');
    for (const name of ['pages', 'mode', 'latency', 'seed', 'corpus', 'server'])
      if (given[name] !== undefined) fail(`--${name} is for the sites the bench serves; it cannot go with --url`);
    single.url = root.href;
  }
}

const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
const argv = process.argv.slice(2);
const COMMAND = `npm run bench${argv.length ? ` -- ${argv.map(quote).join(' ')}` : ''}`;

// ---------------------------------------------------------------------------------------------
// cleanup: every child, server and temp dir goes, however the bench ends (measure.mjs keeps the lists)

process.on('exit', cleanupNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping children and removing temp dirs\n`);
    cleanupNow();
    process.exit(130);
  });
}

const log = (line) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// rows

/** Wraps one row's run with the site's counters and CPU, reset before it. */
async function withSite(site, run) {
  if (!site) return { ...(await run()), server: undefined };
  await site.reset();
  const before = site.cpuS();
  const result = await run();
  const after = site.cpuS();
  const stats = await site.stats();
  return { ...result, server: { ...stats, cpuS: after - before } };
}

/** The ceiling: exactly C requests in flight over C keep-alive connections; bodies read and dropped. */
async function rawRow(urls, concurrency, robotsUrl, timeoutS) {
  const agent = new Agent({
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const deadline = AbortSignal.timeout(timeoutS * 1_000);
  setMaxListeners(concurrency + 16, deadline); // every request in flight listens to it
  let next = 0;
  let responses = 0;
  let pages = 0;
  let errors = 0;
  let bytes = 0;
  let firstError;
  const rss0 = process.memoryUsage.rss();
  let peakRss = rss0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next < urls.length && !deadline.aborted) {
      const url = urls[next];
      next += 1;
      try {
        const response = await request(url, {
          dispatcher: agent,
          signal: deadline,
          headers: { 'user-agent': 'crawlite-bench-raw', accept: '*/*' },
        });
        for await (const chunk of response.body) bytes += chunk.byteLength;
        responses += 1;
        if (url !== robotsUrl) pages += 1;
      } catch (error) {
        errors += 1;
        firstError ??= `${url}: ${error.message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallS = (performance.now() - started) / 1_000;
  const cpu = process.cpuUsage(cpu0);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  clearInterval(sampler);
  await agent.close();
  if (errors) log(`bench: raw row: ${errors} requests failed, the first: ${firstError}`);
  return {
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    peakRssMB: peakRss / 2 ** 20,
    rssDeltaMB: (peakRss - rss0) / 2 ** 20,
    pages,
    requests: responses + errors,
    errors,
    bytes,
    exitCode: 0,
    timedOut: deadline.aborted,
  };
}

function crawliteQuery(db, sql) {
  const out = execFileSync(process.execPath, [CRAWLITE_BIN, 'query', db, sql, '-f', 'json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: 120_000,
  });
  return JSON.parse(out);
}

/**
 * crawlite into a fresh archive; returns the measurement plus what the archive holds. `measureSize`
 * 'full' adds the size rows (its .warc.gz, `crawlite compact` of it: archive-size.mjs), 'file' only its
 * size as crawled and where the bytes are; both after the crawl's own figures, so they cost it nothing.
 */
async function crawliteRow(
  site,
  root,
  cfg,
  { keepUrls = false, htmlPages = false, extraArgs = [], withArchiveIo = false, withMarkdown = false, measureSize } = {},
) {
  const dir = makeTemp('crawlite');
  const db = join(dir, 'bench.sqlite');
  try {
    const measured = await withSite(site, () =>
      measureChild(CRAWLITE_BIN, ['crawl', root, '--db', db, '-c', String(cfg.concurrency), '-q', ...extraArgs], {
        cwd: dir,
        timeoutS: cfg.rowTimeoutS,
      }),
    );
    if (measured.exitCode !== 0)
      log(
        `bench: crawlite exited ${measured.exitCode}${measured.timedOut ? ' (row timeout)' : ''}: ${measured.output.trim().slice(-2_000)}`,
      );
    let archive;
    if (existsSync(db)) {
      const count = (sql) => Number(crawliteQuery(db, sql)[0]?.n ?? 0);
      archive = {
        pages: count("select count(*) n from pages where kind = 'page'"),
        pages200: count("select count(*) n from pages where kind = 'page' and status = 200"),
        html200: count("select count(*) n from pages where kind = 'page' and status = 200 and content_type like 'text/html%'"),
        requisites: count("select count(*) n from pages where kind = 'requisite'"),
        responses: count('select count(*) n from pages'),
        offsiteFetched: count("select count(*) n from pages where url like '%offsite.invalid%'"),
        offsiteSkipped: count("select count(*) n from urls where url like '%offsite.invalid%' and state = 'skipped'"),
        failed: count("select count(*) n from urls where state = 'failed'"),
        // The archive as left on disk (a finished crawl checkpoints its WAL into it).
        fileBytes: statSync(db).size,
        urls: keepUrls ? crawliteQuery(db, 'select fetch_url u, kind from pages') : undefined,
        htmlPages: htmlPages
          ? crawliteQuery(db, "select url from pages where kind = 'page' and status = 200 and content_type like 'text/html%'").map(
              (row) => row.url,
            )
          : undefined,
      };
    }
    const pages = measured.server ? measured.server.pages : archive?.pages;
    const requests = measured.server ? measured.server.requests : archive?.responses;
    let markdownPass;
    if (withMarkdown && measured.exitCode === 0 && archive) {
      log('bench: crawlite markdown of a copy of that archive');
      markdownPass = await measureMarkdownPass(CRAWLITE_BIN, db, dir, { timeoutS: cfg.rowTimeoutS });
      if (markdownPass.exitCode !== 0) log(`bench: crawlite markdown exited ${markdownPass.exitCode}: ${markdownPass.output}`);
    }
    let archiveIo;
    if (withArchiveIo && measured.exitCode === 0 && archive) {
      log('bench: crawlite export --warc of that archive, then import of the WARC');
      const bodyBytes = Number(crawliteQuery(db, 'select coalesce(sum(size), 0) n from pages')[0]?.n ?? 0);
      archiveIo = await measureArchiveIo(CRAWLITE_BIN, db, dir, { bodyBytes, responses: archive.responses, timeoutS: cfg.rowTimeoutS });
    }
    let sizes;
    const label = ['crawlite', ...extraArgs].join(' ');
    if (measureSize === 'full' && measured.exitCode === 0 && archive) {
      // the export above wrote this .warc.gz already when it ran; measureSizes exports it otherwise
      sizes = await measureSizes(CRAWLITE_BIN, db, dir, {
        warc: join(dir, 'bench.warc.gz'),
        pages: archive.pages,
        timeoutS: cfg.rowTimeoutS,
        log,
      });
      for (const line of [
        ...breakdownLines(`${label}, as crawled`, sizes.crawled),
        ...breakdownLines(`${label}, after crawlite compact`, sizes.compacted),
      ])
        log(line);
    } else if (measureSize === 'file' && measured.exitCode === 0 && archive) {
      sizes = { ...archiveSize(CRAWLITE_BIN, db, { timeoutS: cfg.rowTimeoutS }), pages: archive.pages };
      for (const line of breakdownLines(`${label}, as crawled`, sizes)) log(line);
    }
    return { ...measured, pages, requests, archive, archiveIo, sizes, markdownPass };
  } finally {
    removeTemp(dir);
  }
}

async function wgetRow(site, binary, args, root, cfg) {
  const dir = makeTemp(binary.split('/').pop());
  try {
    const measured = await withSite(site, () => measureChild(binary, [...args, '-P', dir, root], { cwd: dir, timeoutS: cfg.rowTimeoutS }));
    return { ...measured, pages: measured.server?.pages, requests: measured.server?.requests };
  } finally {
    removeTemp(dir);
  }
}

/**
 * The stack floor (stack-floor.mjs) into a fresh archive, with crawlite's V8 setting (its #! line's), so
 * that the two differ only in their code. Pages and requests from the server, else from its JSON line.
 */
async function floorRow(site, root, cfg, { noText = false } = {}) {
  const dir = makeTemp('floor');
  const db = join(dir, 'floor.sqlite');
  try {
    const args = [
      '--max-semi-space-size=4',
      STACK_FLOOR,
      root,
      '--db',
      db,
      '-c',
      String(cfg.concurrency),
      ...(noText ? ['--no-text'] : []),
    ];
    const measured = await withSite(site, () => measureChild(process.execPath, args, { cwd: dir, timeoutS: cfg.rowTimeoutS }));
    if (measured.exitCode !== 0)
      log(
        `bench: stack floor exited ${measured.exitCode}${measured.timedOut ? ' (row timeout)' : ''}: ${measured.output.trim().slice(-2_000)}`,
      );
    let counted = {};
    try {
      counted = JSON.parse(measured.output.trim().split('\n').at(-1));
    } catch {
      // no final line: it failed, said why above
    }
    const archive = existsSync(db) ? { fileBytes: statSync(db).size } : undefined;
    return {
      ...measured,
      pages: measured.server?.pages ?? counted.pages,
      requests: measured.server?.requests ?? counted.requests,
      archive,
    };
  } finally {
    removeTemp(dir);
  }
}

// ---------------------------------------------------------------------------------------------
// one case: a site, its rows, its check

/** Why the case cannot run here (a missing nginx or corpus), with how to install it; undefined if it can. */
function missingFor(cfg) {
  if (cfg.url) return undefined;
  if (cfg.corpus === 'python-docs') {
    const docs = findPythonDocs(cfg.corpusDir);
    if (docs.missing) return `python3.11-doc not installed: ${docs.missing}`;
  }
  if (cfg.server === 'nginx' && !findNginx()) return `nginx not installed (${NGINX_INSTALL})`;
  return undefined;
}

/** Starts what serves the case; returns the site handle, the crawl root, and what the rows fetch. */
async function serveCase(cfg) {
  if (cfg.corpus === 'python-docs') {
    const started = performance.now();
    const truth = reachableHtml(cfg.corpusDir); // reads every page once: the page cache is warm too
    log(
      `bench: ground truth: ${truth.length} HTML files reachable from /index.html in ${cfg.corpusDir} (${((performance.now() - started) / 1_000).toFixed(1)} s)`,
    );
    const site = await startNginx(findNginx(), { dir: makeTemp('nginx'), root: cfg.corpusDir });
    return { site, root: `${site.origin}/index.html`, truth, warmUrls: truth.map((path) => site.origin + path) };
  }
  if (cfg.server === 'nginx') {
    const dir = makeTemp('nginx');
    const files = join(dir, 'site');
    mkdirSync(files);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const started = performance.now();
    const bytes = writeSyntheticSite(files, cfg.pages, cfg.seed, origin);
    log(
      `bench: wrote ${cfg.pages} pages (${(bytes / 2 ** 20).toFixed(0)} MiB) to ${files} in ${((performance.now() - started) / 1_000).toFixed(1)} s`,
    );
    const site = await startNginx(findNginx(), { dir, root: files, port });
    const urls = siteUrls(origin, cfg.pages);
    return { site, root: `${origin}/`, rawUrls: urls, robotsUrl: `${origin}/robots.txt`, warmUrls: urls.slice(0, WARMUP_REQUESTS) };
  }
  const site = await startSiteChild({ pages: cfg.pages, seed: cfg.seed, latencyMs: cfg.latencyMs });
  const urls = siteUrls(site.origin, cfg.pages);
  return { site, root: `${site.origin}/`, rawUrls: urls, robotsUrl: `${site.origin}/robots.txt`, warmUrls: urls.slice(0, WARMUP_REQUESTS) };
}

function describe(cfg) {
  if (cfg.url) return cfg.url;
  if (cfg.corpus === 'python-docs') return `Python docs (${cfg.corpusDir}) served by nginx`;
  return `${cfg.pages} pages, ${cfg.mode}${cfg.mode === 'latency' ? ` ${cfg.latencyMs} ms` : ''}, served by ${cfg.server === 'nginx' ? 'nginx' : 'a Node child process'}`;
}

/** The python-docs check: crawlite's HTML pages with status 200 against the ground truth. */
function docsCheck(truth, archive) {
  const want = new Set(truth);
  const got = new Set((archive?.htmlPages ?? []).map((url) => pageKey(decodeURIComponent(new URL(url).pathname))));
  const missing = [...want].filter((path) => !got.has(path));
  const extra = [...got].filter((path) => !want.has(path));
  return { missing, extra };
}

async function runCase(cfg) {
  const C = cfg.concurrency;
  const skip = cfg.skip ?? new Set(cfg.defaultSkip ?? (cfg.mode === 'latency' ? ['wget'] : []));
  const skipWhy = cfg.skip ? ' (--skip)' : ` (${cfg.defaultSkipWhy ?? 'latency mode'}; --skip none runs it)`;
  const wget2 = skip.has('wget2') ? undefined : which('wget2');
  const wget = skip.has('wget') ? undefined : which('wget');
  // The floor crawls 127.0.0.1 only: a site named with --url elsewhere has no floor row.
  const floorNote = skip.has('floor')
    ? 'skipped (--skip)'
    : cfg.url && new URL(cfg.url).hostname !== '127.0.0.1'
      ? 'only for http://127.0.0.1 sites'
      : undefined;
  const rows = {
    raw: { id: 'raw', label: 'raw undici (fetch only)', runs: [] },
    crawlite: { id: 'crawlite', label: 'crawlite', runs: [] },
    ...(cfg.markdownRow
      ? {
          crawliteMarkdown: { id: 'crawliteMarkdown', label: 'crawlite + markdown (Markdown on)', runs: [] },
          markdown: { id: 'markdown', label: 'crawlite markdown (alone)', runs: [] },
        }
      : {}),
    ...(cfg.compactRow ? { crawliteCompact: { id: 'crawliteCompact', label: 'crawlite --compact', runs: [] } } : {}),
    ...(cfg.noTextRow ? { crawliteNoText: { id: 'crawliteNoText', label: 'crawlite --no-text', runs: [] } } : {}),
    floor: { id: 'floor', label: 'stack floor (one thread)', runs: [], note: floorNote },
    ...(cfg.noTextRow ? { floorNoText: { id: 'floorNoText', label: 'stack floor --no-text', runs: [], note: floorNote } } : {}),
    wget2: {
      id: 'wget2',
      label: `wget2 (--max-threads=${C})`,
      runs: [],
      note: skip.has('wget2') ? 'skipped (--skip)' : wget2 ? undefined : 'not installed (apt-get install wget2)',
    },
    wget: {
      id: 'wget',
      label: 'wget (1 connection)',
      runs: [],
      note: skip.has('wget') ? `skipped${skipWhy}` : wget ? undefined : 'not installed (apt-get install wget)',
    },
  };
  const checks = [];
  let served = { root: cfg.url };
  try {
    if (!cfg.url) {
      served = await serveCase(cfg);
      log(`bench: ${describe(cfg)}, -c ${C}, ${cfg.runs} run(s), root ${served.root} (server pid ${served.site.pid})`);
      // Warm the server and the bench's HTTP client up (JIT, sockets, file caches) before the first row.
      await rawRow(served.warmUrls, C, served.robotsUrl, cfg.rowTimeoutS);
    } else {
      log(`bench: ${cfg.url}, -c ${C}, ${cfg.runs} run(s); crawlite first, then the raw row on the URLs it stored`);
    }
    const { site, root, truth } = served;
    let { rawUrls, robotsUrl } = served;
    const wgetArgs = ['-r', '-l', 'inf', '-np', '-nd', '-q'];
    for (let run = 1; run <= cfg.runs; run += 1) {
      const tag = cfg.runs > 1 ? ` [run ${run}/${cfg.runs}]` : '';
      const doRaw = async () => {
        log(`bench: raw undici, ${rawUrls.length} URLs, ${C} in flight${tag}`);
        const measured = await withSite(site, () => rawRow(rawUrls, C, robotsUrl, cfg.rowTimeoutS));
        // Counted as for the other rows: the HTML pages the server answered with 200.
        rows.raw.runs.push(measured.server ? { ...measured, pages: measured.server.pages, requests: measured.server.requests } : measured);
      };
      if (rawUrls) await doRaw();
      log(`bench: crawlite -c ${C}${tag}`);
      // Sizes are the same in every run: measured once, in the first.
      const sizing = cfg.sizes && run === 1;
      const crawled = await crawliteRow(site, root, cfg, {
        keepUrls: !rawUrls,
        htmlPages: Boolean(truth),
        withArchiveIo: cfg.archiveIo,
        withMarkdown: cfg.markdownRow,
        measureSize: sizing ? 'full' : undefined,
      });
      rows.crawlite.runs.push(crawled);
      if (cfg.markdownRow && crawled.markdownPass) {
        rows.crawliteMarkdown.runs.push(crawlThenMarkdown(crawled, crawled.markdownPass));
        rows.markdown.runs.push(crawled.markdownPass);
      }
      if (cfg.compactRow) {
        log(`bench: crawlite --compact -c ${C}${tag}`);
        rows.crawliteCompact.runs.push(
          await crawliteRow(site, root, cfg, { extraArgs: ['--compact'], measureSize: sizing ? 'file' : undefined }),
        );
      }
      if (cfg.noTextRow) {
        log(`bench: crawlite --no-text -c ${C}${tag}`);
        rows.crawliteNoText.runs.push(
          await crawliteRow(site, root, cfg, { extraArgs: ['--no-text'], measureSize: sizing ? 'full' : undefined }),
        );
      }
      const docs = truth ? docsCheck(truth, crawled.archive) : undefined;
      checks.push({
        run,
        exitCode: crawled.exitCode,
        timedOut: crawled.timedOut,
        ...crawled.archive,
        urls: undefined,
        htmlPages: undefined,
        notFound: crawled.server?.notFound,
        serverErrors: crawled.server?.serverErrors,
        requests: crawled.requests,
        docs,
      });
      if (!rawUrls) {
        // The raw row fetches what crawlite fetched (pages, requisites, robots.txt): the same set of URLs.
        const stored = crawled.archive?.urls ?? [];
        rawUrls = stored.map((row) => row.u);
        robotsUrl = stored.find((row) => row.kind === 'robots')?.u;
        if (!rawUrls.length) throw new Error(`crawlite stored nothing from ${root}; nothing to compare`);
        await doRaw();
      }
      if (!floorNote) {
        log(`bench: stack floor -c ${C}${tag}`);
        rows.floor.runs.push(await floorRow(site, root, cfg));
        if (cfg.noTextRow) {
          log(`bench: stack floor --no-text -c ${C}${tag}`);
          rows.floorNoText.runs.push(await floorRow(site, root, cfg, { noText: true }));
        }
      }
      if (wget2) {
        log(`bench: wget2 --max-threads=${C}${tag}`);
        rows.wget2.runs.push(await wgetRow(site, wget2, [...wgetArgs, `--max-threads=${C}`], root, cfg));
      }
      if (wget) {
        log(`bench: wget, one connection${tag}`);
        rows.wget.runs.push(await wgetRow(site, wget, wgetArgs, root, cfg));
      }
    }
    const summary = Object.fromEntries(Object.entries(rows).map(([id, row]) => [id, summarize(row)]));
    const archiveIo = rows.crawlite.runs.at(-1)?.archiveIo;
    const sizes = cfg.sizes
      ? {
          textOn: rows.crawlite.runs[0]?.sizes,
          noText: rows.crawliteNoText?.runs[0]?.sizes,
          compactCrawl: rows.crawliteCompact?.runs[0]?.sizes,
        }
      : undefined;
    return {
      cfg,
      rows: summary,
      ...checkOf(cfg, checks, truth),
      serverKind: served.site?.kind,
      truthPages: truth?.length,
      archiveIo,
      sizes,
    };
  } finally {
    await served.site?.stop();
  }
}

function checkOf(cfg, checks, truth) {
  const expected = cfg.url || truth ? undefined : cfg.pages;
  const passes = (check) =>
    check.exitCode === 0 &&
    !check.timedOut &&
    check.pages !== undefined &&
    (truth ? check.docs.missing.length === 0 && check.docs.extra.length === 0 : true) &&
    (expected === undefined || (check.pages === expected && check.pages200 === expected && !check.notFound)) &&
    (cfg.url || truth ? true : check.offsiteFetched === 0);
  const checkOk = checks.every(passes);
  const last = checks[checks.length - 1] ?? {};
  const runsNote = cfg.runs > 1 ? ` (figures of the last run; ${checkOk ? 'all' : 'not all'} ${cfg.runs} runs passed)` : '';
  let checkLine;
  if (cfg.url) {
    checkLine = `check: crawlite archived ${last.pages ?? '?'} pages (kind = 'page'), ${last.pages200 ?? '?'} with status 200, ${last.failed ?? '?'} URLs failed`;
  } else if (truth) {
    const list = (paths) => (paths.length ? `: ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', ...' : ''}` : '');
    checkLine =
      `check: crawlite archived ${last.html200 ?? '?'} HTML pages with status 200 (kind = 'page'); ground truth ${truth.length} (HTML files reachable from /index.html); ` +
      `missing ${last.docs?.missing.length ?? '?'}${list(last.docs?.missing ?? [])}, extra ${last.docs?.extra.length ?? '?'}${list(last.docs?.extra ?? [])}; ` +
      `${last.requests ?? '?'} requests in all (${last.requisites ?? '?'} requisites, ${(last.pages ?? 0) - (last.html200 ?? 0)} other pages, robots.txt); ${checkOk ? 'OK' : 'FAILED'}${runsNote}`;
  } else {
    checkLine =
      `check: crawlite archived ${last.pages ?? '?'} of ${expected} pages (kind = 'page'), ${last.pages200 ?? '?'} with status 200; ` +
      `off-site URLs fetched ${last.offsiteFetched ?? '?'} (${last.offsiteSkipped ?? '?'} recorded as skipped); ` +
      `requests for unknown paths ${last.notFound ?? '?'}${last.serverErrors ? `; server errors (5xx) ${last.serverErrors}` : ''}; ${checkOk ? 'OK' : 'FAILED'}${runsNote}`;
  }
  return { checks, checkOk, checkLine };
}

// ---------------------------------------------------------------------------------------------
// the suite: the five reference cases and their targets

const SUITE = [
  {
    id: 'python-docs',
    corpus: 'python-docs',
    server: 'nginx',
    mode: 'static',
    concurrency: 16,
    archiveIo: true,
    noTextRow: true,
    compactRow: true,
    markdownRow: true,
    sizes: true,
  },
  {
    id: 'synthetic',
    corpus: 'synthetic',
    server: 'nginx',
    mode: 'static',
    pages: 20_000,
    concurrency: 16,
    archiveIo: true,
    noTextRow: true,
    compactRow: true,
    markdownRow: true,
    sizes: true,
  },
  // The latency cases' site and C without the latency: what a page costs crawlite's CPU when nothing waits.
  {
    id: 'static-64',
    corpus: 'synthetic',
    server: 'node',
    mode: 'static',
    pages: 2_000,
    concurrency: 64,
    defaultSkip: ['wget'],
    defaultSkipWhy: 'a CPU comparison',
  },
  { id: 'latency-16', corpus: 'synthetic', server: 'node', mode: 'latency', latencyMs: 50, pages: 2_000, concurrency: 16 },
  { id: 'latency-64', corpus: 'synthetic', server: 'node', mode: 'latency', latencyMs: 50, pages: 2_000, concurrency: 64 },
];

/** --with-100k: what an archive of 100,000 pages costs (bytes per page, peak RSS); the rows that measure it only. */
const SUITE_100K = {
  id: 'synthetic-100k',
  corpus: 'synthetic',
  server: 'nginx',
  mode: 'static',
  pages: 100_000,
  concurrency: 16,
  compactRow: true,
  sizes: true,
  defaultSkip: ['wget', 'wget2', 'floor'],
  defaultSkipWhy: 'a size case',
};

const ratio = (a, b) => (a !== undefined && b ? a / b : undefined);

const rowsOf = (r) => r.rows;
const ioOf = (r) => r.archiveIo;

/**
 * `at` reads a value from the target's case (`r`) and, where it compares two cases, from the other one
 * (`byId`). The import and export goals are multiples of what commit 9c0640a measured with
 * `npm run bench -- --suite` on the reference machine (2 cores, 2026-11-27): import 475.8 pages/s
 * (synthetic) and 120.9 (Python docs), export 14.3 MiB/s (synthetic) and 28.3 (Python docs).
 */
const TARGETS = [
  {
    case: 'latency-16',
    name: 'latency C=16 crawlite/ideal',
    at: (r) => ratio(rowsOf(r).crawlite.pagesPerS, r.ideal),
    op: '>=',
    goal: 0.95,
  },
  {
    case: 'latency-64',
    name: 'latency C=64 crawlite/wget2',
    at: (r) => ratio(rowsOf(r).crawlite.pagesPerS, rowsOf(r).wget2.pagesPerS),
    op: '>=',
    goal: 0.9,
  },
  {
    case: 'latency-64',
    also: 'static-64',
    name: 'latency C=64 CPU per page / static C=64 CPU per page',
    at: (r, byId) => ratio(rowsOf(r).crawlite.cpuMsPerPage, rowsOf(byId['static-64']).crawlite.cpuMsPerPage),
    op: '<=',
    goal: 1.15,
  },
  {
    case: 'synthetic',
    name: 'synthetic text on / --no-text (pages/s)',
    at: (r) => ratio(rowsOf(r).crawlite.pagesPerS, rowsOf(r).crawliteNoText?.pagesPerS),
    op: '>=',
    goal: 0.8,
  },
  {
    case: 'python-docs',
    name: 'Python docs text on / --no-text (pages/s)',
    at: (r) => ratio(rowsOf(r).crawlite.pagesPerS, rowsOf(r).crawliteNoText?.pagesPerS),
    op: '>=',
    goal: 0.9,
  },
  { case: 'synthetic', name: 'synthetic import pages/s', at: (r) => ioOf(r)?.import?.pagesPerS, op: '>=', goal: 1427, digits: 0 }, // 3 × 475.8
  { case: 'python-docs', name: 'Python docs import pages/s', at: (r) => ioOf(r)?.import?.pagesPerS, op: '>=', goal: 363, digits: 0 }, // 3 × 120.9
  { case: 'synthetic', name: 'synthetic export MiB/s', at: (r) => ioOf(r)?.export?.mbPerS, op: '>=', goal: 28.6, digits: 1 }, // 2 × 14.3
  { case: 'python-docs', name: 'Python docs export MiB/s', at: (r) => ioOf(r)?.export?.mbPerS, op: '>=', goal: 56.7, digits: 1 }, // 2 × 28.3
  // A small archive: the compacted archive against its own export, what compacting costs, and 100,000 pages.
  {
    case: 'python-docs',
    name: 'Python docs compact archive / its .warc.gz, text on',
    at: (r) => r.sizes?.textOn?.overWarc.compacted,
    op: '<=',
    goal: 2.0,
  },
  {
    case: 'python-docs',
    name: 'Python docs compact archive / its .warc.gz, --no-text',
    at: (r) => r.sizes?.noText?.overWarc.compacted,
    op: '<=',
    goal: 1.2,
  },
  {
    case: 'python-docs',
    name: 'Python docs `crawlite compact` wall',
    at: (r) => (r.sizes?.textOn?.compact.exitCode === 0 ? r.sizes.textOn.compact.wallS : undefined),
    op: '<',
    goal: 5,
    unit: ' s',
  },
  ...Object.entries({ 'python-docs': 'Python docs', synthetic: 'synthetic', 'synthetic-100k': '100k synthetic' }).map(([id, label]) => ({
    case: id,
    name: `${label} crawl --compact / crawl (pages/s)`,
    at: (r) => ratio(rowsOf(r).crawliteCompact?.pagesPerS, rowsOf(r).crawlite.pagesPerS),
    op: '>=',
    goal: 0.9,
  })),
  {
    case: 'synthetic-100k',
    name: '100k synthetic KB per page after crawlite compact, text on',
    at: (r) => (r.sizes?.textOn?.perPage.compacted === undefined ? undefined : r.sizes.textOn.perPage.compacted / KB),
    op: '<=',
    goal: 10,
    unit: ' KB',
    digits: 1,
  },
  {
    case: 'synthetic-100k',
    name: '100k synthetic crawlite peak RSS (178 MB at 65k pages before)',
    at: (r) => rowsOf(r).crawlite.peakRssMB,
    op: '<=',
    goal: 178,
    unit: ' MB',
    digits: 0,
  },
  // Against the stack floor (one thread): at most a tenth more CPU per page, and half again its pages/s from two cores.
  ...Object.entries({ 'python-docs': 'Python docs', synthetic: 'synthetic', 'static-64': 'static C=64' }).flatMap(([id, label]) => [
    {
      case: id,
      name: `${label} crawlite CPU per page / floor`,
      at: (r) => ratio(rowsOf(r).crawlite.cpuMsPerPage, rowsOf(r).floor.cpuMsPerPage),
      op: '<=',
      goal: 1.1,
    },
    {
      case: id,
      name: `${label} crawlite pages/s / floor`,
      at: (r) => ratio(rowsOf(r).crawlite.pagesPerS, rowsOf(r).floor.pagesPerS),
      op: '>=',
      goal: 1.5,
    },
  ]),
];

const OPS = {
  '>=': [(value, goal) => value >= goal, '≥'],
  '<=': [(value, goal) => value <= goal, '≤'],
  '<': [(value, goal) => value < goal, '<'],
};

function titleOf(result) {
  const { cfg } = result;
  if (cfg.id === 'python-docs') {
    const bytes = result.rows?.crawlite?.bytes;
    return `Python 3.11 docs (python3.11-doc${result.truthPages ? `, ${result.truthPages} pages` : ''}${bytes ? `, ${(bytes / 2 ** 20).toFixed(0)} MiB` : ''}), nginx, C=${cfg.concurrency}`;
  }
  if (cfg.mode === 'latency') {
    const ideal = `ideal ${grouped(result.ideal)}`;
    return cfg.id === 'latency-64'
      ? `same, C=${cfg.concurrency} (${ideal})`
      : `${grouped(cfg.pages)} pages, ${cfg.latencyMs} ms latency, Node server, C=${cfg.concurrency} (${ideal})`;
  }
  if (cfg.server === 'node') return `${grouped(cfg.pages)} pages, no latency, Node server, C=${cfg.concurrency}`;
  if (cfg.id === 'synthetic-100k') return `synthetic, ${grouped(cfg.pages)} pages of ~15 KiB (sizes), nginx, C=${cfg.concurrency}`;
  return `synthetic, ${grouped(cfg.pages)} pages of ~15 KiB, nginx, C=${cfg.concurrency}`;
}

async function runSuite() {
  const results = [];
  for (const base of given['with-100k'] ? [...SUITE, SUITE_100K] : SUITE) {
    const cfg = { seed: 1, latencyMs: 0, url: undefined, ...common, ...base, rowTimeoutS: rowTimeoutFor(base.pages ?? 0) };
    const ideal = cfg.mode === 'latency' ? (cfg.concurrency * 1_000) / cfg.latencyMs : undefined;
    const skipped = missingFor(cfg);
    if (skipped) {
      log(`bench: ${cfg.id}: skipped, ${skipped}`);
      results.push({ cfg, ideal, skipped, checkOk: true });
      continue;
    }
    log(`bench: --- ${cfg.id} ---`);
    const result = { ...(await runCase(cfg)), ideal };
    results.push(result);
    // The case's full table goes to stderr as it ends; stdout gets the summary.
    log(
      `${caseTable(Object.values(result.rows), { rawRate: result.rows.raw.pagesPerS, latency: cfg.mode === 'latency', rowTimeoutS: cfg.rowTimeoutS })}\n${result.checkLine}`,
    );
  }
  for (const result of results) result.title = titleOf(result);
  const byId = Object.fromEntries(results.map((result) => [result.cfg.id, result]));
  const measured = (id) => id === undefined || (byId[id] && !byId[id].skipped);
  const targets = TARGETS.map((target) => {
    const value = measured(target.case) && measured(target.also) ? target.at(byId[target.case], byId) : undefined;
    const met = value === undefined ? undefined : OPS[target.op][0](value, target.goal);
    return {
      name: target.name,
      case: target.case,
      also: target.also,
      value,
      op: target.op,
      goal: target.goal,
      unit: target.unit ?? '',
      digits: target.digits ?? 2,
      met,
    };
  });
  return { results, targets, ok: results.every((result) => result.checkOk) };
}

// ---------------------------------------------------------------------------------------------
// main

function machineLine(startLoad, endLoad, timing = `CPU and RSS of children from ${timeTool ? 'GNU time' : '/proc sampling'}`) {
  return (
    `machine: ${availableParallelism()} CPUs, load average ${startLoad[0].toFixed(2)} at the start and ${endLoad[0].toFixed(2)} at the end` +
    `${startLoad[0] > availableParallelism() * BUSY_LOAD ? ' (other processes were busy: noisy figures)' : ''}; node ${process.version}; ${timing}`
  );
}

/** crawlite against the stack floor: the same three figures side by side, and their ratios. */
function floorLine(crawlite, floor, over) {
  if (floor.note || over.pagesPerS === undefined) return `**crawlite / stack floor**: – (${floor.note ?? 'a row has no figures'})`;
  return (
    `**crawlite / stack floor**: pages/s ${fixed(over.pagesPerS, 2)}× (${fixed(crawlite.pagesPerS, 0)} vs ${fixed(floor.pagesPerS, 0)}), ` +
    `CPU per page ${fixed(over.cpuPerPage, 2)}× (${fixed(crawlite.cpuMsPerPage, 2)} vs ${fixed(floor.cpuMsPerPage, 2)} ms), ` +
    `peak RSS ${fixed(over.peakRss, 2)}× (${fixed(crawlite.peakRssMB, 0)} vs ${fixed(floor.peakRssMB, 0)} MB)`
  );
}

const strip = ({ output, archive, sizes, markdownPass, ...rest }) => ({
  ...rest,
  archive: archive ? { ...archive, urls: undefined, htmlPages: undefined } : undefined,
});
const jsonRows = (rows) => Object.values(rows ?? {}).map((row) => ({ ...row, runs: row.runs.map(strip) }));

/** --text-cost and --search: in-process measurements of full-text search (search-cost.mjs). */
async function searchBench() {
  const dir = makeTemp('search');
  try {
    const lines = [];
    const json = {};
    if (given['text-cost']) {
      json.textCost = await measureTextCost(REPO, dir, {
        pages: intOption('pages', 5_000, 1, 1_000_000),
        seed: intOption('seed', 1, 0, 2 ** 32 - 1),
        log,
      });
      lines.push(...textCostLines(json.textCost));
    }
    if (given.search) {
      json.search = await measureSearch(REPO, dir, { pages: intOption('pages', 100_000, 1, 10_000_000), log });
      lines.push(...searchLines(json.search));
    }
    process.stdout.write(
      common.json
        ? `${JSON.stringify({ command: COMMAND, ...json }, null, 2)}\n`
        : `${[...lines, machineLine(loadavg(), loadavg()), `command: ${COMMAND}`].join('\n')}\n`,
    );
    return 0;
  } finally {
    removeTemp(dir);
  }
}

/** --recrawl-growth: what every kept capture costs an archive over ten re-crawls (recrawl-growth.mjs). */
async function recrawlGrowthBench() {
  const dir = makeTemp('recrawl');
  try {
    const result = await measureRecrawlGrowth(CRAWLITE_BIN, dir, {
      pages: intOption('pages', 10_000, 1, 1_000_000),
      recrawls: intOption('recrawls', 10, 1, 100),
      seed: intOption('seed', 1, 0, 2 ** 32 - 1),
      concurrency: intOption('concurrency', 16, 1, 1024),
      log,
    });
    const lines = [...recrawlGrowthLines(result), machineLine(loadavg(), loadavg()), `command: ${COMMAND}`];
    process.stdout.write(
      common.json ? `${JSON.stringify({ command: COMMAND, recrawlGrowth: result }, null, 2)}\n` : `${lines.join('\n')}\n`,
    );
    return 0;
  } finally {
    removeTemp(dir);
  }
}

/** --workers: 1, 2 and 4 workers on a shared PostgreSQL frontier, and one process, side by side (workers.mjs). */
async function workersBench() {
  if (WORKERS_MISSING) fail(WORKERS_MISSING);
  for (const name of ['corpus', 'server', 'mode', 'url'])
    if (given[name] !== undefined) fail(`--${name} cannot go with --workers, which serves its own site`);
  const counts = given.workers.split(',').map((each) => Number(each.trim()));
  if (counts.length === 0 || counts.some((count) => !Number.isSafeInteger(count) || count < 1 || count > 32))
    fail(`--workers takes counts from 1 to 32, comma-separated, not ${JSON.stringify(given.workers)}`);
  const dir = makeTemp('workers');
  try {
    const startLoad = loadavg();
    const result = await measureWorkers(CRAWLITE_BIN, dir, {
      pages: intOption('pages', 3_000, 1, 1_000_000),
      seed: intOption('seed', 1, 0, 2 ** 32 - 1),
      latencyMs: intOption('latency', 50, 0, 60_000),
      concurrency: intOption('concurrency', 8, 1, 1024),
      counts: [...new Set(counts)].sort((a, b) => a - b),
      rowTimeoutS: common.rowTimeoutS,
      log,
    });
    const lines = [...workersLines(result), machineLine(startLoad, loadavg()), `command: ${COMMAND}`];
    process.stdout.write(common.json ? `${JSON.stringify({ command: COMMAND, workers: result }, null, 2)}\n` : `${lines.join('\n')}\n`);
    const complete = result.rows.every((row) => row.pages === result.site.pages) && result.merge.pages === result.site.pages;
    if (!complete) log(`bench: a row or the merge did not store all ${result.site.pages} pages`);
    return complete ? 0 : 1;
  } finally {
    removeTemp(dir);
  }
}

/** --browser: a plain crawl and a --browser crawl of the Python docs and of a script-built site (browser.mjs). */
async function browserBench() {
  for (const name of ['suite', 'workers', 'server', 'mode', 'latency', 'url', 'seed', 'runs', 'skip'])
    if (given[name] !== undefined && given[name] !== false) fail(`--${name} cannot go with --browser`);
  const corpus = given.corpus ?? 'both';
  if (!['both', 'python-docs', 'script'].includes(corpus))
    fail(`--corpus with --browser takes python-docs or script, not ${JSON.stringify(corpus)}`);
  const cases = corpus === 'both' ? ['python-docs', 'script'] : [corpus];
  const missing = browserMissing({ cases, corpusDir: common.corpusDir });
  if (missing) fail(missing);
  const startLoad = loadavg();
  const pages = intOption('pages', 500, 1, 1_000_000);
  const result = await measureBrowser(CRAWLITE_BIN, {
    cases,
    pages,
    docsPages: given.pages === undefined ? undefined : pages,
    concurrency: intOption('concurrency', 4, 1, 1024),
    corpusDir: common.corpusDir,
    rowTimeoutS: intOption('row-timeout', 3_600, 1, 86_400),
    log,
  });
  result.cores = availableParallelism();
  const lines = [
    ...browserLines(result),
    machineLine(startLoad, loadavg(), "CPU and memory of the crawl's process tree from /proc"),
    `command: ${COMMAND}`,
  ];
  process.stdout.write(
    common.json
      ? `${JSON.stringify({ command: COMMAND, environment: { node: process.version, cpus: availableParallelism(), loadavgAtStart: startLoad, loadavgAtEnd: loadavg() }, browser: result }, null, 2)}\n`
      : `${lines.join('\n')}\n`,
  );
  return result.ok ? 0 : 1;
}

async function main() {
  if (!existsSync(CRAWLITE_BIN)) fail(`${CRAWLITE_BIN} is missing: build crawlite first (npm run build)`);
  if (given.browser) return browserBench();
  if (given.workers !== undefined) return workersBench();
  if (given['text-cost'] || given.search) return searchBench();
  if (given['recrawl-growth']) return recrawlGrowthBench();
  const cfg = given.suite ? undefined : { ...common, ...single };
  if (cfg && !cfg.url && cfg.corpus === 'synthetic' && cfg.server === undefined) {
    cfg.server = cfg.mode === 'static' && findNginx() ? 'nginx' : 'node';
    if (cfg.mode === 'static' && cfg.server === 'node')
      log(`bench: nginx not installed (${NGINX_INSTALL}); serving from a Node child process, whose CPU competes with the rows`);
  }
  if (cfg?.corpus === 'python-docs') cfg.server = 'nginx';
  const missing = cfg && missingFor(cfg);
  if (missing) fail(missing);
  log(
    `bench: timing children with ${timeTool ?? `/proc sampling every ${SAMPLE_MS} ms`}; node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
  );
  const startLoad = loadavg();
  if (startLoad[0] > availableParallelism() * BUSY_LOAD) {
    log(
      `bench: warning: load average ${startLoad.map((value) => value.toFixed(2)).join(' ')} on ${availableParallelism()} CPUs; other processes are busy and the figures will be noisy`,
    );
  }
  const environment = () => ({
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    loadavgAtStart: startLoad,
    loadavgAtEnd: loadavg(),
    timing: timeTool ?? 'proc-sampling',
    nginx: findNginx() ?? null,
    wget2: which('wget2') ?? null,
    wget: which('wget') ?? null,
  });

  if (given.suite) {
    const { results, targets, ok } = await runSuite();
    if (common.json) {
      const cases = results.map(({ checks, ...result }) => ({
        ...result,
        cfg: { ...result.cfg, skip: result.cfg.skip && [...result.cfg.skip] },
        rows: jsonRows(result.rows),
        checks: checks?.map(({ docs, ...check }) => ({ ...check, docs: docs && { missing: docs.missing, extra: docs.extra } })),
      }));
      process.stdout.write(`${JSON.stringify({ command: COMMAND, environment: environment(), cases, targets, ok }, null, 2)}\n`);
    } else {
      const met = targets.filter((target) => target.met).length;
      const targetLines = targets.map(
        (target) =>
          `- ${target.name}: ${target.value === undefined ? '–' : `${fixed(target.value, target.digits)}${target.unit}`} (target ${OPS[target.op][1]} ${target.goal}${target.unit}): ${target.met === undefined ? 'not measured' : target.met ? 'met' : 'NOT met'}`,
      );
      const out = [
        suiteTable(results),
        '',
        `targets: ${met} of ${targets.length} met`,
        ...targetLines,
        '',
        ...results.map((result) => `${result.cfg.id}: ${result.skipped ? `skipped, ${result.skipped}` : result.checkLine}`),
        ...results.filter((result) => result.archiveIo).map((result) => `${result.cfg.id}: ${archiveIoLine(result.archiveIo)}`),
        ...results.filter((result) => result.rows?.markdown).map((result) => `${result.cfg.id}: ${markdownLine(result.rows)}`),
        ...results.filter((result) => result.sizes).flatMap((result) => sizeLines(result.sizes).map((line) => `${result.cfg.id}: ${line}`)),
        machineLine(startLoad, loadavg()),
        `command: ${COMMAND}`,
      ];
      process.stdout.write(`${out.join('\n')}\n`);
    }
    return ok ? 0 : 1;
  }

  const result = await runCase(cfg);
  const { raw, crawlite, floor } = result.rows;
  const overRaw = ratio(crawlite.pagesPerS, raw.pagesPerS);
  const overFloor = {
    pagesPerS: ratio(crawlite.pagesPerS, floor.pagesPerS),
    cpuPerPage: ratio(crawlite.cpuMsPerPage, floor.cpuMsPerPage),
    peakRss: ratio(crawlite.peakRssMB, floor.peakRssMB),
  };
  for (const row of Object.values(result.rows)) row.vsRaw = ratio(row.pagesPerS, raw.pagesPerS);
  if (cfg.json) {
    const { url, ...options } = cfg;
    const site = cfg.url
      ? { url }
      : {
          corpus: cfg.corpus,
          server: result.serverKind,
          pages: cfg.corpus === 'python-docs' ? result.truthPages : cfg.pages,
          mode: cfg.mode,
          latencyMs: cfg.latencyMs,
          seed: cfg.seed,
        };
    const checks = result.checks.map(({ docs, ...check }) => ({ ...check, docs }));
    process.stdout.write(
      `${JSON.stringify({ command: COMMAND, options: { ...options, skip: cfg.skip && [...cfg.skip] }, environment: environment(), site, rows: jsonRows(result.rows), crawliteOverRaw: overRaw, crawliteOverFloor: overFloor, sizes: result.sizes, checks, ok: result.checkOk }, null, 2)}\n`,
    );
  } else {
    const out = [
      caseTable(Object.values(result.rows), { rawRate: raw.pagesPerS, latency: cfg.mode === 'latency', rowTimeoutS: cfg.rowTimeoutS }),
      '',
      overRaw === undefined
        ? '**crawlite / raw**: – (a row has no figures)'
        : `**crawlite / raw**: ${overRaw.toFixed(2)} (crawlite ${crawlite.pagesPerS.toFixed(0)} pages/s, raw ceiling ${raw.pagesPerS.toFixed(0)} pages/s, -c ${cfg.concurrency}, ${describe(cfg)}${cfg.runs > 1 ? `, median of ${cfg.runs} runs` : ''})`,
      floorLine(crawlite, floor, overFloor),
      result.checkLine,
      ...(result.archiveIo ? [archiveIoLine(result.archiveIo)] : []),
      ...(result.rows.markdown ? [markdownLine(result.rows)] : []),
      ...(result.sizes ? sizeLines(result.sizes) : []),
      machineLine(startLoad, loadavg()),
      `command: ${COMMAND}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
  return result.checkOk ? 0 : 1;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  log(`bench: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  cleanupNow();
}
process.exit(exitCode);
