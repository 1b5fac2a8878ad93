// Scale-out throughput: `--workers 1,2,4` crawls one site with 1, 2 and 4 `crawlite worker` processes sharing a
// PostgreSQL frontier (a throwaway cluster, postgres.mjs), each writing its own shard, and, as the reference,
// with one `crawlite crawl` process holding as many requests in flight as the most workers together. The site is
// the synthetic one from a Node child process with a fixed delay per response (--latency, default 50 ms): a
// crawl that waits on servers, which is what more workers are for. Every row runs the built command
// (dist/bundle/crawlite.js) as a user would. After the largest row its shards are merged (`crawlite merge`).
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { measureChild, onCleanup, procSample } from './measure.mjs';
import { POSTGRES_INSTALL, POSTGRES_INSTALLED, startPostgres } from './postgres.mjs';
import { renderTable, fixed, grouped } from './report.mjs';
import { startSiteChild } from './site-child.mjs';

export const WORKERS_MISSING = POSTGRES_INSTALLED ? undefined : `--workers needs PostgreSQL 15 (${POSTGRES_INSTALL})`;

/** Pages stored over a row's archives, and how many of them more than once (a URL fetched by two workers). */
function shardPages(files) {
  const seen = new Set();
  let stored = 0;
  for (const file of files) {
    const db = new Database(file, { readonly: true });
    try {
      for (const { url } of db.prepare("SELECT url FROM pages WHERE kind = 'page'").iterate()) {
        stored += 1;
        seen.add(url);
      }
    } finally {
      db.close();
    }
  }
  return { pages: seen.size, twice: stored - seen.size };
}

/** CPU seconds PostgreSQL spent: the postmaster's own and its reaped backends' (a worker's backends end with it). */
const postgresCpuS = (cluster) => procSample(cluster.pid())?.cpuS ?? 0;

async function workerRow(bin, dir, cluster, site, { workers, concurrency, rowTimeoutS, log }) {
  const database = `w${workers}`;
  const conn = await cluster.createDatabase(database);
  const init = await measureChild(bin, ['frontier', 'init', conn, '--roots', `${site.origin}/`, '-q'], { cwd: dir, timeoutS: 60 });
  if (init.exitCode !== 0) throw new Error(`frontier init failed: ${init.output.trim()}`);
  await site.reset();
  const shards = Array.from({ length: workers }, (_, i) => join(dir, `${database}-shard-${i + 1}.sqlite`));
  const cpuBefore = postgresCpuS(cluster);
  const siteCpuBefore = site.cpuS();
  const started = performance.now();
  const runs = await Promise.all(
    shards.map((shard, i) =>
      measureChild(bin, ['worker', conn, '--db', shard, '-c', String(concurrency), '--name', `w${i + 1}`, '-q'], {
        cwd: dir,
        timeoutS: rowTimeoutS,
      }),
    ),
  );
  const wallS = (performance.now() - started) / 1_000;
  const failed = runs.find((run) => run.exitCode !== 0);
  if (failed)
    throw new Error(
      `a worker exited ${failed.exitCode}${failed.timedOut ? ' (row timeout)' : ''}: ${failed.output.trim().split('\n').at(-1)}`,
    );
  const served = await site.stats();
  const { pages, twice } = shardPages(shards);
  log(`bench: ${workers} worker${workers > 1 ? 's' : ''}: ${pages} pages in ${wallS.toFixed(1)} s`);
  return {
    row: `${workers} worker${workers > 1 ? 's' : ''}`,
    workers,
    concurrency,
    pages,
    twice,
    requests: served.requests,
    wallS,
    pagesPerS: pages / wallS,
    crawliteCpuS: runs.reduce((sum, run) => sum + (run.cpuS ?? 0), 0),
    postgresCpuS: postgresCpuS(cluster) - cpuBefore,
    siteCpuS: site.cpuS() - siteCpuBefore,
    peakRssMB: Math.max(...runs.map((run) => run.peakRssMB ?? 0)),
    shards,
  };
}

async function singleRow(bin, dir, site, { concurrency, rowTimeoutS, log }) {
  const db = join(dir, `single-c${concurrency}.sqlite`);
  await site.reset();
  const siteCpuBefore = site.cpuS();
  const run = await measureChild(bin, ['crawl', `${site.origin}/`, '--db', db, '-c', String(concurrency), '-q'], {
    cwd: dir,
    timeoutS: rowTimeoutS,
  });
  if (run.exitCode !== 0) throw new Error(`crawlite crawl exited ${run.exitCode}: ${run.output.trim().split('\n').at(-1)}`);
  const served = await site.stats();
  const { pages } = shardPages([db]);
  log(`bench: one process -c ${concurrency}: ${pages} pages in ${run.wallS.toFixed(1)} s`);
  return {
    row: `crawl, one process`,
    workers: undefined,
    concurrency,
    pages,
    twice: 0,
    requests: served.requests,
    wallS: run.wallS,
    pagesPerS: pages / run.wallS,
    crawliteCpuS: run.cpuS,
    postgresCpuS: undefined,
    siteCpuS: site.cpuS() - siteCpuBefore,
    peakRssMB: run.peakRssMB,
  };
}

export async function measureWorkers(bin, dir, { pages, seed, latencyMs, concurrency, counts, rowTimeoutS, log }) {
  const cluster = await startPostgres({ settings: { max_connections: 100 } });
  // However the bench ends, the cluster goes: a synchronous kill of the postmaster (its temp dir goes with the bench's).
  const unregister = onCleanup(() => {
    const pid = cluster.pid();
    if (pid) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // gone already
      }
    }
  });
  const site = await startSiteChild({ pages, seed, latencyMs });
  try {
    const rows = [];
    for (const workers of counts) rows.push(await workerRow(bin, dir, cluster, site, { workers, concurrency, rowTimeoutS, log }));
    const most = Math.max(...counts);
    rows.push(await singleRow(bin, dir, site, { concurrency: concurrency * most, rowTimeoutS, log }));
    const largest = rows.find((row) => row.workers === most);
    const merged = join(dir, 'merged.sqlite');
    const merge = await measureChild(bin, ['merge', ...largest.shards, '--db', merged, '-q'], { cwd: dir, timeoutS: rowTimeoutS });
    if (merge.exitCode !== 0) throw new Error(`crawlite merge exited ${merge.exitCode}: ${merge.output.trim().split('\n').at(-1)}`);
    const mergedPages = shardPages([merged]).pages;
    const one = rows.find((row) => row.workers === 1) ?? rows[0];
    for (const row of rows) {
      row.overOne = row.pagesPerS / one.pagesPerS;
      delete row.shards;
    }
    return {
      site: { pages, latencyMs, seed },
      concurrency,
      rows,
      merge: { shards: most, pages: mergedPages, wallS: merge.wallS, pagesPerS: mergedPages / merge.wallS, peakRssMB: merge.peakRssMB },
    };
  } finally {
    await site.stop();
    await cluster.destroy();
    unregister();
  }
}

export function workersLines(result) {
  const header = [
    'row',
    'in flight',
    'pages',
    'fetched twice',
    'requests',
    'wall s',
    'pages/s',
    '× 1 worker',
    'crawlite CPU s',
    'PostgreSQL CPU s',
    'site CPU s',
    'peak RSS MB',
  ];
  const lines = result.rows.map((row) => [
    row.row,
    row.workers ? `${row.workers} × ${row.concurrency}` : String(row.concurrency),
    grouped(row.pages),
    grouped(row.twice),
    grouped(row.requests),
    fixed(row.wallS, 1),
    fixed(row.pagesPerS, 0),
    fixed(row.overOne, 2),
    fixed(row.crawliteCpuS, 1),
    fixed(row.postgresCpuS, 1),
    fixed(row.siteCpuS, 1),
    fixed(row.peakRssMB, 0),
  ]);
  const { merge, site } = result;
  return [
    renderTable([header, ...lines], 1),
    '',
    `site: ${grouped(site.pages)} synthetic pages from a Node child process, ${site.latencyMs} ms per response; PostgreSQL 15 on the same machine`,
    `merge: ${merge.shards} shards into one archive of ${grouped(merge.pages)} pages in ${fixed(merge.wallS, 1)} s (${fixed(merge.pagesPerS, 0)} pages/s, peak RSS ${fixed(merge.peakRssMB, 0)} MB)`,
  ];
}
