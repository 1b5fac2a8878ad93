// `npm run bench -- --browser`: what `crawl --browser` costs against a plain crawl of the same site. Two cases,
// the Python docs (nginx) and a site built by scripts (script-site-server.mjs, a Node child process); in each a
// plain crawl and a --browser crawl at the same -c, one run each. The crawl's process tree (crawlite and every
// Chromium process below it) is sampled from /proc while it runs: CPU per process (the last value seen per
// process: one that exits is gone from /proc), RSS and PSS summed over the tree, Chromium launches, and the
// pages fetched so far, for the peak memory of the first and the last quarter of the run.
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { findPythonDocs, PYTHON_DOCS_INSTALL, reachableHtml } from './corpus.mjs';
import { killGroup, makeTemp, onCleanup, procSample, removeTemp } from './measure.mjs';
import { findNginx, NGINX_INSTALL, startNginx } from './nginx.mjs';
import { fixed, grouped, renderTable } from './report.mjs';

const SCRIPT_SITE = join(dirname(fileURLToPath(import.meta.url)), 'script-site-server.mjs');
/** How often the crawl's process tree is read (smaps_rollup of every Chromium process included). */
export const TREE_SAMPLE_MS = 250;
/** Pages rendered at once: as many as -c, 8 at most (src/run/page-renderer.ts). */
const MAX_TABS = 8;
const tabsFor = (concurrency) => Math.min(concurrency, MAX_TABS);
const MARKER = '--crawlite-renderer=';

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
} catch {
  // Linux's usual value
}

// ---------------------------------------------------------------------------------------------
// the process tree

function childrenOf(pid) {
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const found = [];
  for (const task of tasks) {
    try {
      for (const each of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (each.trim()) found.push(Number(each));
    } catch {
      // the thread ended while being read
    }
  }
  return found;
}

function treeOf(root) {
  const found = [root];
  for (let i = 0; i < found.length && found.length < 10_000; i += 1) found.push(...childrenOf(found[i]));
  return found;
}

/** One process now: its own CPU (utime + stime, children not included), start time, RSS and PSS; undefined once gone. */
function readProcess(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, starttime 22
    const cpuS = (Number(fields[11]) + Number(fields[12])) / clockTicks;
    const started = fields[19];
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    let pssKb;
    try {
      pssKb = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      pssKb = undefined;
    }
    return { cpuS, started, rssMB: rssKb / 1024, pssMB: pssKb === undefined ? undefined : pssKb / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Samples the tree under `root` every TREE_SAMPLE_MS until stopped: CPU per process (the last value seen,
 * keyed by PID and start time), the summed RSS and PSS of crawlite and of the rest (Chromium), the PIDs of
 * Chromium's main processes (their command line holds the renderer's marker), and `progress()` at each sample.
 */
function sampleTree(root, progress) {
  const cpu = new Map(); // `${pid}:${started}` -> { cpuS, crawlite }
  const browsers = new Set();
  const kinds = new Map(); // `${pid}:${started}` -> Chromium's process type (renderer, gpu-process, ...)
  const samples = [];
  let pssSeen = false;
  const once = () => {
    const at = {
      t: performance.now(),
      pages: progress(),
      crawliteRssMB: 0,
      chromiumRssMB: 0,
      crawlitePssMB: 0,
      chromiumPssMB: 0,
      processes: 0,
    };
    for (const pid of treeOf(root)) {
      const proc = readProcess(pid);
      if (!proc || proc.rssMB === 0) continue; // gone, or a zombie
      const key = `${pid}:${proc.started}`;
      const own = pid === root;
      if (!own && !kinds.has(key)) {
        let kind = 'other';
        try {
          // A process forked from the zygote rewrites its title: its arguments then come space-separated.
          const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
          // Each launch has a marker of its own (a UUID); the wrapper script's subshells and Chromium's helpers repeat it.
          const marker = args.find((arg) => arg.startsWith(MARKER));
          if (marker) browsers.add(marker);
          const type = args.find((arg) => arg.startsWith('--type='))?.slice(7);
          kind = type
            ? (args
                .find((arg) => arg.startsWith('--utility-sub-type='))
                ?.split('.')
                .pop() ?? type)
            : marker
              ? 'browser'
              : 'other';
        } catch {
          // gone
        }
        kinds.set(key, kind);
      }
      cpu.set(key, { cpuS: proc.cpuS, crawlite: own, kind: own ? 'crawlite' : kinds.get(key) });
      at.processes += 1;
      if (proc.pssMB !== undefined) pssSeen = true;
      if (own) {
        at.crawliteRssMB += proc.rssMB;
        at.crawlitePssMB += proc.pssMB ?? proc.rssMB;
      } else {
        at.chromiumRssMB += proc.rssMB;
        at.chromiumPssMB += proc.pssMB ?? proc.rssMB;
      }
    }
    samples.push(at);
  };
  once();
  const timer = setInterval(once, TREE_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const sum = (crawlite) =>
        [...cpu.values()].filter((each) => each.crawlite === crawlite).reduce((total, each) => total + each.cpuS, 0);
      const byKind = {};
      for (const each of cpu.values()) if (!each.crawlite) byKind[each.kind] = (byKind[each.kind] ?? 0) + each.cpuS;
      return {
        crawliteCpuS: sum(true),
        chromiumCpuS: sum(false),
        chromiumCpuSByKind: byKind,
        chromiumProcesses: cpu.size - 1,
        browserLaunches: browsers.size,
        samples,
        pss: pssSeen,
      };
    },
  };
}

const peak = (samples, get) => samples.reduce((most, sample) => Math.max(most, get(sample)), 0);

/** Peak memory of the samples taken in the first and in the last quarter of the pages. */
function quarters(samples, total) {
  if (!total) return undefined;
  const first = samples.filter((sample) => sample.pages <= total / 4);
  const last = samples.filter((sample) => sample.pages >= (total * 3) / 4);
  const tree = (sample) => sample.crawliteRssMB + sample.chromiumRssMB;
  const treePss = (sample) => sample.crawlitePssMB + sample.chromiumPssMB;
  return {
    firstSamples: first.length,
    lastSamples: last.length,
    firstTreeRssMB: peak(first, tree),
    lastTreeRssMB: peak(last, tree),
    firstTreePssMB: peak(first, treePss),
    lastTreePssMB: peak(last, treePss),
    firstCrawliteRssMB: peak(first, (sample) => sample.crawliteRssMB),
    lastCrawliteRssMB: peak(last, (sample) => sample.crawliteRssMB),
  };
}

// ---------------------------------------------------------------------------------------------
// the script-built site, as a child process

async function startScriptSite(pages) {
  const child = fork(SCRIPT_SITE, ['--pages', String(pages)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const unregister = onCleanup(() => {
    if (alive()) child.kill('SIGKILL');
  });
  const ready = await new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error('the script site did not start within 10 s')), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolvePromise(message);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the script site exited (${code})`));
    });
  });
  let last = { pages: 0 };
  const call = (type) =>
    new Promise((resolvePromise) => {
      const onMessage = (message) => {
        if (message?.type !== 'stats') return;
        child.off('message', onMessage);
        last = message.stats;
        resolvePromise(message.stats);
      };
      child.on('message', onMessage);
      child.send({ type });
    });
  return {
    origin: `http://127.0.0.1:${ready.port}`,
    pid: ready.pid,
    lists: ready.lists,
    reset: () => call('reset'),
    stats: () => call('stats'),
    /** The pages fetched so far, as of the last answer (asked for again in the background). */
    pagesNow() {
      void call('stats');
      return last.pages;
    },
    cpuS: () => procSample(child.pid)?.cpuS ?? 0,
    async stop() {
      unregister();
      if (!alive()) return;
      const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
      child.disconnect();
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// one crawl

function archiveFigures(db) {
  if (!existsSync(db)) return undefined;
  const handle = new Database(db, { readonly: true });
  try {
    const count = (sql) => {
      try {
        return Number(handle.prepare(sql).get()?.n ?? 0);
      } catch {
        return undefined;
      }
    };
    return {
      pages: count("select count(*) n from pages where kind = 'page'"),
      pages200: count("select count(*) n from pages where kind = 'page' and status = 200"),
      requisites: count("select count(*) n from pages where kind = 'requisite'"),
      captures: count('select count(*) n from captures'),
      scriptData: count("select count(*) n from pages where url like '%/api/%' or url like '%.json'"),
      screenshots: count('select count(*) n from screenshot'),
      renderFailed: count("select count(*) n from url where error_code = 'render_failed'"),
      fetchMsPerPage: (() => {
        try {
          return handle.prepare("select avg(elapsed_ms) n from pages where kind = 'page'").get()?.n ?? undefined;
        } catch {
          return undefined;
        }
      })(),
    };
  } finally {
    handle.close();
  }
}

/** Runs one crawl as a child process in its own group, its tree sampled until it exits. */
function crawlRow(bin, args, { cwd, timeoutS, progress }) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const unregister = onCleanup(() => killGroup(child.pid, 'SIGKILL'));
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-8_192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const sampler = sampleTree(child.pid, progress);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5_000).unref();
    }, timeoutS * 1_000);
    let wallS;
    child.on('exit', () => {
      wallS = (performance.now() - started) / 1_000;
    });
    child.on('close', (code, signal) => {
      wallS ??= (performance.now() - started) / 1_000;
      clearTimeout(timer);
      const tree = sampler.stop();
      killGroup(child.pid, 'SIGKILL');
      unregister();
      resolvePromise({ wallS, exitCode: code ?? (signal ? 128 : null), timedOut, output, ...tree });
    });
  });
}

async function measureCase(bin, site, { id, title, root, concurrency, maxPages, expectedPages, rowTimeoutS, log }) {
  const rows = [];
  for (const browser of [false, true]) {
    const dir = makeTemp(`browser-${id}`);
    try {
      const db = join(dir, 'bench.sqlite');
      const args = [
        'crawl',
        root,
        '--db',
        db,
        '-c',
        String(concurrency),
        '-q',
        ...(maxPages ? ['--max-pages', String(maxPages)] : []),
        ...(browser ? ['--browser'] : []),
      ];
      log(`bench: ${id}: crawlite ${args.join(' ')}`);
      await site.reset();
      const serverCpu0 = site.cpuS();
      const run = await crawlRow(bin, args, { cwd: dir, timeoutS: rowTimeoutS, progress: site.pagesNow });
      const serverCpuS = site.cpuS() - serverCpu0;
      const served = await site.stats();
      if (run.exitCode !== 0)
        log(`bench: ${id}: crawlite exited ${run.exitCode}${run.timedOut ? ' (row timeout)' : ''}: ${run.output.trim().slice(-2_000)}`);
      const archive = archiveFigures(db);
      const pages = archive?.pages ?? 0;
      const samples = run.samples;
      const tree = (sample) => sample.crawliteRssMB + sample.chromiumRssMB;
      const row = {
        row: browser ? 'crawl --browser' : 'crawl (plain)',
        browser,
        command: `crawlite ${args.map((arg) => (arg === db ? '<tmp>/bench.sqlite' : arg)).join(' ')}`,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        pages,
        pages200: archive?.pages200,
        requisites: archive?.requisites,
        captures: archive?.captures,
        scriptData: archive?.scriptData,
        screenshots: archive?.screenshots,
        renderFailed: archive?.renderFailed,
        requests: served.requests,
        wallS: run.wallS,
        pagesPerS: pages / run.wallS,
        crawliteCpuS: run.crawliteCpuS,
        chromiumCpuS: run.chromiumCpuS,
        crawliteCpuMsPerPage: pages ? (run.crawliteCpuS * 1_000) / pages : undefined,
        chromiumCpuMsPerPage: pages ? (run.chromiumCpuS * 1_000) / pages : undefined,
        /** Chromium's CPU per page by process type: its main process, renderers, the GPU process, the network service. */
        chromiumCpuMsPerPageByKind: pages
          ? Object.fromEntries(Object.entries(run.chromiumCpuSByKind).map(([kind, cpuS]) => [kind, (cpuS * 1_000) / pages]))
          : undefined,
        /** Cores busy on average over the wall time. */
        crawliteCores: run.crawliteCpuS / run.wallS,
        chromiumCores: run.chromiumCpuS / run.wallS,
        serverCpuS,
        peakCrawliteRssMB: peak(samples, (sample) => sample.crawliteRssMB),
        peakChromiumRssMB: peak(samples, (sample) => sample.chromiumRssMB),
        peakTreeRssMB: peak(samples, tree),
        peakTreePssMB: peak(samples, (sample) => sample.crawlitePssMB + sample.chromiumPssMB),
        pss: run.pss,
        chromiumProcesses: run.chromiumProcesses,
        browserLaunches: run.browserLaunches,
        fetchMsPerPage: archive?.fetchMsPerPage,
        // Fetching on 127.0.0.1 takes milliseconds: the tabs are what is busy, so a page holds one this long.
        tabSPerPage: browser && pages ? (run.wallS * tabsFor(concurrency)) / pages : undefined,
        quarters: quarters(samples, served.pages ?? pages),
        samples: samples.length,
      };
      log(
        `bench: ${id}: ${row.row}: ${pages} pages in ${fixed(row.wallS, 1)} s (${fixed(row.pagesPerS, 2)} pages/s), Chromium launched ${row.browserLaunches} times`,
      );
      rows.push(row);
    } finally {
      removeTemp(dir);
    }
  }
  const [plain, browser] = rows;
  browser.overPlain = {
    pagesPerS: browser.pagesPerS / plain.pagesPerS,
    cpuMsPerPage: (browser.crawliteCpuMsPerPage + browser.chromiumCpuMsPerPage) / plain.crawliteCpuMsPerPage,
    peakRss: browser.peakTreeRssMB / plain.peakTreeRssMB,
  };
  const complete = rows.every((row) => row.exitCode === 0 && !row.timedOut && (expectedPages === undefined || row.pages === expectedPages));
  return { id, title, concurrency, expectedPages, rows, ok: complete };
}

// ---------------------------------------------------------------------------------------------
// the cases

/** Why --browser cannot run the cases asked for here, with how to install what is missing. */
export function browserMissing({ cases, corpusDir }) {
  if (!existsSync(process.env.CRAWLITE_CHROMIUM ?? '/usr/bin/chromium')) return 'crawl --browser needs Chromium (apt-get install chromium)';
  if (cases.includes('python-docs')) {
    if (!findNginx()) return `the Python docs case needs nginx (${NGINX_INSTALL}); --corpus script runs the other case alone`;
    const docs = findPythonDocs(corpusDir);
    if (docs.missing) return `python3.11-doc not installed (${PYTHON_DOCS_INSTALL}): ${docs.missing}`;
  }
  return undefined;
}

export async function measureBrowser(bin, { cases, pages, docsPages, concurrency, corpusDir, rowTimeoutS, log }) {
  const results = [];
  if (cases.includes('python-docs')) {
    const truth = reachableHtml(corpusDir);
    const site = await startNginx(findNginx(), { dir: makeTemp('nginx'), root: corpusDir });
    let fetched = 0;
    const handle = {
      ...site,
      pagesNow() {
        // The access log, read between samples: HTML pages answered 200 so far.
        void site.stats().then((stats) => {
          fetched = stats.pages;
        });
        return fetched;
      },
    };
    try {
      const pagesNote = docsPages ? `the first ${docsPages} of ${truth.length} pages (--max-pages)` : `${truth.length} pages`;
      results.push(
        await measureCase(bin, handle, {
          id: 'python-docs',
          title: `Python 3.11 docs (python3.11-doc, ${pagesNote}), nginx, -c ${concurrency}`,
          root: `${site.origin}/index.html`,
          concurrency,
          maxPages: docsPages,
          expectedPages: undefined,
          rowTimeoutS,
          log,
        }),
      );
    } finally {
      await site.stop();
    }
  }
  if (cases.includes('script')) {
    const site = await startScriptSite(pages);
    try {
      results.push(
        await measureCase(bin, site, {
          id: 'script',
          title: `script-built site, ${grouped(pages)} item pages + ${site.lists} list pages (links, item text from JSON; an image each), Node server, -c ${concurrency}`,
          root: `${site.origin}/`,
          concurrency,
          maxPages: undefined,
          expectedPages: pages + site.lists,
          rowTimeoutS,
          log,
        }),
      );
    } finally {
      await site.stop();
    }
  }
  return { cases: results, tabs: tabsFor(concurrency), sampleMs: TREE_SAMPLE_MS, ok: results.every((result) => result.ok) };
}

// ---------------------------------------------------------------------------------------------
// the report

const times = (value) => (value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(2)}×`);

export function browserLines(result) {
  const header = [
    'case',
    'row',
    'pages',
    'requisites',
    'wall s',
    'pages/s',
    'vs plain',
    'crawlite CPU ms/page',
    'Chromium CPU ms/page',
    'CPU vs plain',
    'cores busy (crawlite + Chromium)',
    'peak RSS MB crawlite / Chromium / tree',
    'peak PSS MB tree',
    'Chromium launches',
    's per page in a tab',
  ];
  const lines = [header];
  for (const each of result.cases) {
    for (const row of each.rows) {
      const flags = [
        row.timedOut ? 'row timeout' : '',
        row.exitCode !== 0 ? `exit ${row.exitCode}` : '',
        row.renderFailed ? `${row.renderFailed} render_failed` : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push([
        each.id,
        flags ? `${row.row} (${flags})` : row.row,
        grouped(row.pages),
        grouped(row.requisites),
        fixed(row.wallS, 1),
        fixed(row.pagesPerS, 2),
        row.browser ? times(row.overPlain?.pagesPerS) : '1.00×',
        fixed(row.crawliteCpuMsPerPage, 1),
        row.browser ? fixed(row.chromiumCpuMsPerPage, 1) : '–',
        row.browser ? times(row.overPlain?.cpuMsPerPage) : '1.00×',
        `${fixed(row.crawliteCores, 2)} + ${fixed(row.chromiumCores, 2)}`,
        `${fixed(row.peakCrawliteRssMB, 0)} / ${row.browser ? fixed(row.peakChromiumRssMB, 0) : '–'} / ${fixed(row.peakTreeRssMB, 0)}`,
        row.pss ? fixed(row.peakTreePssMB, 0) : '–',
        row.browser ? String(row.browserLaunches) : '–',
        fixed(row.tabSPerPage, 2),
      ]);
    }
  }
  const out = [renderTable(lines, 2), ''];
  for (const each of result.cases) {
    const browser = each.rows.find((row) => row.browser);
    const plain = each.rows.find((row) => !row.browser);
    out.push(`${each.id}: ${each.title}`);
    out.push(
      `  archive: plain ${grouped(plain.pages)} pages, ${grouped(plain.captures)} captures, ${grouped(plain.scriptData)} JSON; --browser ${grouped(browser.pages)} pages, ${grouped(browser.captures)} captures, ` +
        `${grouped(browser.scriptData)} JSON, ${grouped(browser.screenshots)} screenshots, ${grouped(browser.renderFailed)} render_failed${each.expectedPages ? `; expected ${grouped(each.expectedPages)} pages` : ''}; ${each.ok ? 'OK' : 'FAILED'}`,
    );
    const q = browser.quarters;
    if (q) {
      out.push(
        `  memory, --browser, peak of the tree in the first / last quarter of the pages: RSS ${fixed(q.firstTreeRssMB, 0)} / ${fixed(q.lastTreeRssMB, 0)} MB, ` +
          `PSS ${fixed(q.firstTreePssMB, 0)} / ${fixed(q.lastTreePssMB, 0)} MB, crawlite alone ${fixed(q.firstCrawliteRssMB, 0)} / ${fixed(q.lastCrawliteRssMB, 0)} MB ` +
          `(${q.firstSamples} / ${q.lastSamples} samples); Chromium launched ${browser.browserLaunches} times, ${browser.chromiumProcesses} Chromium processes seen`,
      );
    }
    out.push(
      `  time: fetch ${fixed(browser.fetchMsPerPage, 1)} ms per page (capture elapsed_ms; plain ${fixed(plain.fetchMsPerPage, 1)} ms); a page holds one of the ${result.tabs} tabs ${fixed(browser.tabSPerPage, 2)} s ` +
        `(wall × tabs / pages); CPU over the wall: crawlite ${fixed(browser.crawliteCores, 2)} + Chromium ${fixed(browser.chromiumCores, 2)} cores of the machine's ${result.cores ?? '?'}`,
    );
    const kinds = Object.entries(browser.chromiumCpuMsPerPageByKind ?? {}).sort((a, b) => b[1] - a[1]);
    if (kinds.length) out.push(`  Chromium CPU ms per page by process: ${kinds.map(([kind, ms]) => `${kind} ${fixed(ms, 0)}`).join(', ')}`);
  }
  out.push(
    `figures: one run each; CPU per process is utime + stime from /proc, the last value seen per process (sampled every ${result.sampleMs} ms, so up to that much of each process's last moments is lost), ` +
      `RSS is VmRSS and PSS is smaps_rollup's Pss, summed over crawlite's process tree at each sample, peaks over the samples; quarters by pages fetched (the server's count, at most -c ahead of pages done)`,
  );
  return out;
}
