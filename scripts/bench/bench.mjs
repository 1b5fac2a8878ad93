#!/usr/bin/env node
// crawlite throughput bench: the raw HTTP ceiling, crawlite, wget2 and wget side by side,
// in one run, against a synthetic site served on 127.0.0.1 by a child process (site-server.mjs).
// See scripts/bench/README.md. Plain ESM, Node built-ins and undici only.
import { execFileSync, fork, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { siteUrls } from './site.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const CRAWLITE_BIN = join(REPO, 'dist', 'cli', 'bin.js');
const SERVER = join(HERE, 'site-server.mjs');
const TIME = '/usr/bin/time';
const SAMPLE_MS = 100;
const WARMUP_REQUESTS = 500;
/** Load average per CPU above which the machine is called busy (the bench itself adds about 1). */
const BUSY_LOAD = 0.75;

const HELP = `npm run bench -- [options]

Measures, side by side in one run, against a site on 127.0.0.1:
  raw       undici fetching the site's URL list with exactly C requests in flight (the ceiling)
  crawlite  node dist/cli/bin.js crawl <root> --db <tmp> -c C -q
  wget2     wget2 -r -l inf --max-threads=C -nd -q -P <tmp> <root>   (if installed)
  wget      wget -r -l inf -nd -q -P <tmp> <root>, one connection  (if installed)

Options:
  --pages N              pages of the synthetic site (default 20000)
  -c, --concurrency C    requests in flight for every row (default 16)
  --mode static|latency  how the site answers (default static)
  --latency MS           fixed delay per response in latency mode (default 50; implies --mode latency)
  --url ROOT             bench a site you name instead of the synthetic one: crawlite first, then the raw row
                         fetches exactly the URLs crawlite stored, then wget2/wget
  --runs K               repeat every row K times and report medians (default 1)
  --skip ROWS            comma-separated rows to leave out: wget2, wget
  --seed S               seed of the synthetic site (default 1)
  --row-timeout S        a row still running after S seconds is stopped and reported as such (default 900)
  --json                 print one JSON object instead of the table
  -h, --help             this text

Build crawlite first (npx tsc -p .). Figures are whole-process; read them as ratios within one run.`;

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
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) fail(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

const opts = {
  pages: intOption('pages', 20_000, 1, 2_000_000),
  concurrency: intOption('concurrency', 16, 1, 1024),
  runs: intOption('runs', 1, 1, 25),
  seed: intOption('seed', 1, 0, 2 ** 32 - 1),
  rowTimeoutS: intOption('row-timeout', 900, 1, 86_400),
  mode: given.mode ?? (given.latency !== undefined ? 'latency' : 'static'),
  latencyMs: 0,
  url: undefined,
  json: given.json,
  skip: new Set((given.skip ?? '').split(',').map((row) => row.trim()).filter(Boolean)),
};
if (!['static', 'latency'].includes(opts.mode)) fail(`--mode must be static or latency, not ${JSON.stringify(opts.mode)}`);
if (opts.mode === 'static' && given.latency !== undefined) fail('--latency needs --mode latency (or no --mode)');
if (opts.mode === 'latency') opts.latencyMs = intOption('latency', 50, 0, 60_000);
for (const row of opts.skip) if (!['wget2', 'wget'].includes(row)) fail(`--skip takes wget2 and wget, not ${JSON.stringify(row)}`);
if (given.url !== undefined) {
  let root;
  try {
    root = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(given.url) ? given.url : `http://${given.url}`);
  } catch {
    fail(`--url ${JSON.stringify(given.url)} is not a URL`);
  }
  if (!['http:', 'https:'].includes(root.protocol)) fail('--url must be http or https');
  for (const name of ['pages', 'mode', 'latency', 'seed']) if (given[name] !== undefined) fail(`--${name} is for the synthetic site; it cannot go with --url`);
  opts.url = root.href;
}

const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
const argv = process.argv.slice(2);
const COMMAND = `npm run bench${argv.length ? ` -- ${argv.map(quote).join(' ')}` : ''}`;

// ---------------------------------------------------------------------------------------------
// cleanup: every child, the server and every temp dir go, however the bench ends

const children = new Set(); // pids of process-group leaders we spawned (detached)
const tempDirs = new Set();
let server;

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function cleanupNow() {
  for (const pid of children) killGroup(pid, 'SIGKILL');
  children.clear();
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.clear();
}

process.on('exit', cleanupNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping children and removing temp dirs\n`);
    cleanupNow();
    process.exit(130);
  });
}

function makeTemp(label) {
  const dir = mkdtempSync(join(tmpdir(), `crawlite-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

function removeTemp(dir) {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.delete(dir);
}

const log = (line) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// measuring processes

function which(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
} catch {
  // Linux's usual value
}

/** CPU seconds (self and reaped children) and peak RSS (MB) of a live process, from /proc; undefined once it is gone. */
function procSample(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return { cpuS: ticks / clockTicks, peakRssMB: hwm ? Number(hwm[1]) / 1024 : undefined };
  } catch {
    return undefined;
  }
}

// CRAWLITE_BENCH_TIMING=proc forces the /proc sampling used where GNU time is missing.
const timeTool = process.env.CRAWLITE_BENCH_TIMING !== 'proc' && existsSync(TIME) ? TIME : undefined;

/**
 * Runs a command in its own process group and measures it: wall time from spawn to exit, user+sys
 * CPU and peak RSS from GNU time when /usr/bin/time exists, else from /proc sampled every 100 ms.
 * A run past the row timeout is stopped (SIGTERM, then SIGKILL) and marked timedOut.
 */
function measureChild(command, args, { cwd, timeoutS }) {
  return new Promise((resolvePromise) => {
    const timeFile = timeTool ? join(makeTemp('time'), 'time.txt') : undefined;
    const [file, fileArgs] = timeTool ? [timeTool, ['-f', '%e %U %S %M', '-o', timeFile, command, ...args]] : [command, args];
    const started = performance.now();
    const child = spawn(file, fileArgs, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child.pid);
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-8_192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let last;
    const sampler = timeTool
      ? undefined
      : setInterval(() => {
          // A zombie still has its stat but no memory lines: keep the highest RSS seen.
          const sample = procSample(child.pid);
          if (sample) last = { cpuS: Math.max(sample.cpuS, last?.cpuS ?? 0), peakRssMB: Math.max(sample.peakRssMB ?? 0, last?.peakRssMB ?? 0) || undefined };
        }, SAMPLE_MS);
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      killer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 3_000);
    }, timeoutS * 1_000);
    let wallS;
    child.on('exit', () => {
      wallS = (performance.now() - started) / 1_000;
    });
    child.on('error', (error) => keep(`${error.message}\n`));
    child.on('close', (code, signal) => {
      wallS ??= (performance.now() - started) / 1_000;
      clearTimeout(timer);
      clearTimeout(killer);
      if (sampler) clearInterval(sampler);
      killGroup(child.pid, 'SIGKILL'); // anything it left behind in its group
      children.delete(child.pid);
      let cpuS = last?.cpuS;
      let peakRssMB = last?.peakRssMB;
      let exitCode = code;
      if (timeFile) {
        const text = existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '';
        const figures = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/m.exec(text);
        if (figures) {
          cpuS = Number(figures[2]) + Number(figures[3]);
          peakRssMB = Number(figures[4]) / 1024;
        }
        // GNU time exits with the command's status; it reports a signal in its file
        const killed = /Command terminated by signal (\d+)/.exec(text);
        if (killed) exitCode = 128 + Number(killed[1]);
        removeTemp(dirname(timeFile));
      }
      resolvePromise({ wallS, cpuS, peakRssMB, exitCode: exitCode ?? (signal ? 128 : null), signal, timedOut, output });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// the site server (child process, IPC)

function startServer() {
  const args = ['--pages', String(opts.pages), '--seed', String(opts.seed), '--latency', String(opts.latencyMs)];
  return new Promise((resolvePromise, reject) => {
    server = fork(SERVER, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const timer = setTimeout(() => reject(new Error('the site server did not start within 10 s')), 10_000);
    server.once('message', (message) => {
      clearTimeout(timer);
      if (message?.type === 'ready') resolvePromise(message);
      else reject(new Error(`unexpected message from the site server: ${JSON.stringify(message)}`));
    });
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the site server exited (${code})`));
    });
  });
}

function serverCall(type) {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      server.off('message', onMessage);
      reject(new Error(`the site server did not answer ${type} within 10 s`));
    }, 10_000);
    const onMessage = (message) => {
      if (message?.type !== 'stats') return;
      clearTimeout(timer);
      server.off('message', onMessage);
      resolvePromise(message.stats);
    };
    server.on('message', onMessage);
    server.send({ type });
  });
}

/** Wraps one row's run with the server's counters and CPU, reset before it. */
async function withServer(run) {
  if (!server) return { ...(await run()), server: undefined };
  await serverCall('reset');
  const before = procSample(server.pid);
  const result = await run();
  const after = procSample(server.pid);
  const stats = await serverCall('stats');
  return { ...result, server: { ...stats, cpuS: before && after ? after.cpuS - before.cpuS : undefined } };
}

// ---------------------------------------------------------------------------------------------
// rows

/** The ceiling: exactly C requests in flight over C keep-alive connections; bodies read and dropped. */
async function rawRow(urls, concurrency, robotsUrl) {
  const agent = new Agent({ connections: concurrency, pipelining: 1, keepAliveTimeout: 10_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const deadline = AbortSignal.timeout(opts.rowTimeoutS * 1_000);
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
        const response = await request(url, { dispatcher: agent, signal: deadline, headers: { 'user-agent': 'crawlite-bench-raw', accept: '*/*' } });
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

function countFiles(dir) {
  let count = 0;
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop();
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.isDirectory()) stack.push(join(current, entry.name));
      else if (entry.name !== 'robots.txt') count += 1;
    }
  }
  return count;
}

/** crawlite into a fresh archive; returns the measurement plus what the archive holds. */
async function crawliteRow(root, concurrency, { keepArchive = false } = {}) {
  const dir = makeTemp('crawlite');
  const db = join(dir, 'bench.sqlite');
  try {
    const measured = await withServer(() =>
      measureChild(process.execPath, [CRAWLITE_BIN, 'crawl', root, '--db', db, '-c', String(concurrency), '-q'], { cwd: dir, timeoutS: opts.rowTimeoutS }),
    );
    if (measured.exitCode !== 0) log(`bench: crawlite exited ${measured.exitCode}${measured.timedOut ? ' (row timeout)' : ''}: ${measured.output.trim().slice(-2_000)}`);
    let archive;
    if (existsSync(db)) {
      const count = (sql) => Number(crawliteQuery(db, sql)[0]?.n ?? 0);
      archive = {
        pages: count("select count(*) n from pages where kind = 'page'"),
        pages200: count("select count(*) n from pages where kind = 'page' and status = 200"),
        responses: count('select count(*) n from pages'),
        offsiteFetched: count("select count(*) n from pages where url like '%offsite.invalid%'"),
        offsiteSkipped: count("select count(*) n from urls where url like '%offsite.invalid%' and state = 'skipped'"),
        failed: count("select count(*) n from urls where state = 'failed'"),
        urls: keepArchive ? crawliteQuery(db, 'select coalesce(fetch_url, url) u, kind from pages').map((row) => row) : undefined,
      };
    }
    const pages = measured.server ? measured.server.pages : archive?.pages;
    const requests = measured.server ? measured.server.requests : archive?.responses;
    return { ...measured, pages, requests, archive };
  } finally {
    removeTemp(dir);
  }
}

async function wgetRow(binary, args, root) {
  const dir = makeTemp(binary.split('/').pop());
  try {
    const measured = await withServer(() => measureChild(binary, [...args, '-P', dir, root], { cwd: dir, timeoutS: opts.rowTimeoutS }));
    const files = countFiles(dir);
    return { ...measured, pages: measured.server ? measured.server.pages : files, requests: measured.server ? measured.server.requests : undefined, files };
  } finally {
    removeTemp(dir);
  }
}

// ---------------------------------------------------------------------------------------------
// reporting

const median = (values) => {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function summarize(row) {
  if (!row.runs.length) return row;
  const pick = (get) => median(row.runs.map(get));
  return {
    ...row,
    pages: pick((run) => run.pages),
    requests: pick((run) => run.requests),
    wallS: pick((run) => run.wallS),
    pagesPerS: pick((run) => (run.pages !== undefined && run.wallS > 0 ? run.pages / run.wallS : undefined)),
    cpuS: pick((run) => run.cpuS),
    peakRssMB: pick((run) => run.peakRssMB),
    maxInFlight: pick((run) => run.server?.maxInFlight),
    avgInFlight: pick((run) => run.server?.avgInFlight),
    activeS: pick((run) => run.server?.activeS),
    connections: pick((run) => run.server?.connections),
    serverCpuS: pick((run) => run.server?.cpuS),
    exitCodes: [...new Set(row.runs.map((run) => run.exitCode))],
    timedOut: row.runs.some((run) => run.timedOut),
  };
}

const fixed = (value, digits) => (value === undefined ? '–' : value.toFixed(digits));
const whole = (value) => (value === undefined ? '–' : String(Math.round(value)));

function markdownTable(rows, rawRate) {
  const header = ['row', 'pages', 'requests', 'wall s', 'active s', 'pages/s', 'CPU s', 'peak RSS MB', 'vs raw', 'in flight avg/max', 'conns', 'server CPU s'];
  const lines = [header];
  for (const row of rows) {
    if (row.note) {
      lines.push([`${row.label.split(' ')[0]} — ${row.note}`, ...header.slice(1).map(() => '–')]);
      continue;
    }
    const flags = [row.timedOut ? `stopped at --row-timeout ${opts.rowTimeoutS}` : '', row.exitCodes.some((code) => code !== 0) ? `exit ${row.exitCodes.join('/')}` : '']
      .filter(Boolean)
      .join(', ');
    lines.push([
      flags ? `${row.label} (${flags})` : row.label,
      whole(row.pages),
      whole(row.requests),
      fixed(row.wallS, 2),
      fixed(row.activeS, 2),
      fixed(row.pagesPerS, 0),
      fixed(row.cpuS, 2),
      fixed(row.peakRssMB, 0),
      row.pagesPerS !== undefined && rawRate ? `${(row.pagesPerS / rawRate).toFixed(2)}×` : '–',
      // a static server answers synchronously: one request at a time, whatever the client sends
      opts.mode === 'latency' && row.maxInFlight !== undefined ? `${fixed(row.avgInFlight, 1)} / ${whole(row.maxInFlight)}` : '–',
      whole(row.connections),
      fixed(row.serverCpuS, 2),
    ]);
  }
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  const numeric = (column) => column > 0;
  const render = (line) => `| ${line.map((cell, column) => (numeric(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (numeric(column) ? `${'-'.repeat(width + 1)}:` : `:${'-'.repeat(width + 1)}`)).join('|')}|`;
  return [render(lines[0]), rule, ...lines.slice(1).map(render)].join('\n');
}

// ---------------------------------------------------------------------------------------------
// main

let startLoad;

async function main() {
  if (!existsSync(CRAWLITE_BIN)) fail(`${CRAWLITE_BIN} is missing: build crawlite first (npx tsc -p . or npm run build)`);
  const wget2 = opts.skip.has('wget2') ? undefined : which('wget2');
  const wget = opts.skip.has('wget') ? undefined : which('wget');
  const C = opts.concurrency;

  let root;
  let rawUrls;
  let robotsUrl;
  if (!opts.url) {
    const ready = await startServer();
    const origin = `http://127.0.0.1:${ready.port}`;
    root = `${origin}/`;
    rawUrls = siteUrls(origin, opts.pages);
    robotsUrl = `${origin}/robots.txt`;
    log(`bench: ${opts.pages} pages, ${opts.mode}${opts.mode === 'latency' ? ` ${opts.latencyMs} ms` : ''}, -c ${C}, ${opts.runs} run(s), site ${root} (server pid ${ready.pid})`);
    // Warm the server up (JIT, sockets) so the first row is not the one that pays for it.
    const warm = Math.min(WARMUP_REQUESTS, rawUrls.length);
    await rawRow(rawUrls.slice(0, warm), C, robotsUrl);
  } else {
    root = opts.url;
    log(`bench: ${root}, -c ${C}, ${opts.runs} run(s); crawlite first, then the raw row on the URLs it stored`);
  }
  log(`bench: timing children with ${timeTool ?? `/proc sampling every ${SAMPLE_MS} ms`}; node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
  const load = loadavg();
  startLoad = load;
  if (load[0] > availableParallelism() * BUSY_LOAD) {
    log(`bench: warning: load average ${load.map((value) => value.toFixed(2)).join(' ')} on ${availableParallelism()} CPUs; other processes are busy and the figures will be noisy`);
  }

  const rows = {
    raw: { id: 'raw', label: 'raw undici (ceiling)', runs: [] },
    crawlite: { id: 'crawlite', label: 'crawlite', runs: [] },
    wget2: { id: 'wget2', label: `wget2 (--max-threads=${C})`, runs: [], note: opts.skip.has('wget2') ? 'skipped (--skip)' : wget2 ? undefined : 'not installed (apt-get install wget2)' },
    wget: { id: 'wget', label: 'wget (1 connection)', runs: [], note: opts.skip.has('wget') ? 'skipped (--skip)' : wget ? undefined : 'not installed (apt-get install wget)' },
  };
  const checks = [];

  for (let run = 1; run <= opts.runs; run += 1) {
    const tag = opts.runs > 1 ? ` [run ${run}/${opts.runs}]` : '';
    const doRaw = async () => {
      log(`bench: raw undici, ${rawUrls.length} URLs, ${C} in flight${tag}`);
      rows.raw.runs.push(await withServer(() => rawRow(rawUrls, C, robotsUrl)));
    };
    if (!opts.url) await doRaw();
    log(`bench: crawlite -c ${C}${tag}`);
    const crawled = await crawliteRow(root, C, { keepArchive: Boolean(opts.url) && !rawUrls });
    rows.crawlite.runs.push(crawled);
    checks.push({ run, exitCode: crawled.exitCode, timedOut: crawled.timedOut, ...crawled.archive, urls: undefined, notFound: crawled.server?.notFound });
    if (opts.url) {
      if (!rawUrls) {
        const stored = crawled.archive?.urls ?? [];
        rawUrls = stored.map((row) => row.u);
        robotsUrl = stored.find((row) => row.kind === 'robots')?.u;
        if (!rawUrls.length) throw new Error(`crawlite stored no pages from ${root}; nothing to compare`);
      }
      await doRaw();
    }
    if (wget2) {
      log(`bench: wget2 --max-threads=${C}${tag}`);
      rows.wget2.runs.push(await wgetRow(wget2, ['-r', '-l', 'inf', `--max-threads=${C}`, '-nd', '-q'], root));
    }
    if (wget) {
      log(`bench: wget, one connection${tag}`);
      rows.wget.runs.push(await wgetRow(wget, ['-r', '-l', 'inf', '-nd', '-q'], root));
    }
  }

  const summary = Object.values(rows).map(summarize);
  const raw = summary[0];
  const crawlite = summary[1];
  const ratio = crawlite.pagesPerS !== undefined && raw.pagesPerS ? crawlite.pagesPerS / raw.pagesPerS : undefined;
  for (const row of summary) row.vsRaw = row.pagesPerS !== undefined && raw.pagesPerS ? row.pagesPerS / raw.pagesPerS : undefined;

  const expected = opts.url ? undefined : opts.pages;
  const checkOk = checks.every(
    (check) =>
      check.exitCode === 0 &&
      !check.timedOut &&
      check.pages !== undefined &&
      (expected === undefined || (check.pages === expected && check.pages200 === expected && !check.notFound)) &&
      check.offsiteFetched === 0,
  );
  const last = checks[checks.length - 1] ?? {};
  const checkLine = opts.url
    ? `check: crawlite archived ${last.pages ?? '?'} pages (kind = 'page'), ${last.pages200 ?? '?'} with status 200, ${last.failed ?? '?'} URLs failed`
    : `check: crawlite archived ${last.pages ?? '?'} of ${expected} pages (kind = 'page'), ${last.pages200 ?? '?'} with status 200; ` +
      `off-site URLs fetched ${last.offsiteFetched ?? '?'} (${last.offsiteSkipped ?? '?'} recorded as skipped); ` +
      `requests for unknown paths ${last.notFound ?? '?'}; ${checkOk ? 'OK' : 'FAILED'}${opts.runs > 1 ? ` (figures of the last run; ${checkOk ? 'all' : 'not all'} ${opts.runs} runs passed)` : ''}`;
  const endLoad = loadavg();
  const machineLine =
    `machine: ${availableParallelism()} CPUs, load average ${startLoad[0].toFixed(2)} at the start and ${endLoad[0].toFixed(2)} at the end` +
    `${startLoad[0] > availableParallelism() * BUSY_LOAD ? ' (other processes were busy: noisy figures)' : ''}; node ${process.version}; CPU and RSS of children from ${timeTool ? 'GNU time' : '/proc sampling'}`;

  if (opts.json) {
    const strip = ({ output, archive, ...rest }) => ({ ...rest, archive: archive ? { ...archive, urls: undefined } : undefined });
    const result = {
      command: COMMAND,
      options: { ...opts, skip: [...opts.skip] },
      environment: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model, loadavgAtStart: startLoad, loadavgAtEnd: endLoad, timing: timeTool ?? 'proc-sampling', wget2: wget2 ?? null, wget: wget ?? null },
      site: opts.url ? { url: opts.url } : { root, pages: opts.pages, mode: opts.mode, latencyMs: opts.latencyMs, seed: opts.seed, urls: rawUrls.length },
      rows: summary.map((row) => ({ ...row, runs: row.runs.map(strip) })),
      crawliteOverRaw: ratio,
      checks,
      ok: checkOk,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const out = [
      markdownTable(summary, raw.pagesPerS),
      '',
      ratio === undefined
        ? '**crawlite / raw**: – (a row has no figures)'
        : `**crawlite / raw**: ${ratio.toFixed(2)} (crawlite ${crawlite.pagesPerS.toFixed(0)} pages/s, raw ceiling ${raw.pagesPerS.toFixed(0)} pages/s, -c ${C}${opts.url ? '' : `, ${opts.mode}${opts.mode === 'latency' ? ` ${opts.latencyMs} ms` : ''}, ${opts.pages} pages`}${opts.runs > 1 ? `, median of ${opts.runs} runs` : ''})`,
      checkLine,
      machineLine,
      `command: ${COMMAND}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
  return checkOk ? 0 : 1;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  log(`bench: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (server && server.connected) server.disconnect();
  cleanupNow();
}
process.exit(exitCode);
