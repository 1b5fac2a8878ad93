// How long `crawlite import` takes on two WARCs other tools wrote: wget's WARC of the Python 3.11 docs and
// wget's WARC of the synthetic site (--pages, default 20,000), both served by nginx on 127.0.0.1. With
// --against OTHER.js, the same imports by a second build of crawlite, in the same run (read the ratio).
//
//   node scripts/bench/import-timing.mjs [--pages N] [--crawlite dist/bundle/crawlite.js] [--against B.js] [--keep DIR]
//
// Needs nginx, wget and python3.11-doc (apt-get install nginx wget python3.11-doc).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findPythonDocs, writeSyntheticSite } from './corpus.mjs';
import { makeTemp, measureChild, removeTemp, which } from './measure.mjs';
import { findNginx, freePort, startNginx } from './nginx.mjs';

const { values: given } = parseArgs({
  options: {
    pages: { type: 'string', default: '20000' },
    crawlite: { type: 'string', default: 'dist/bundle/crawlite.js' },
    against: { type: 'string' },
    keep: { type: 'string' },
    runs: { type: 'string', default: '1' },
  },
});

function fail(message) {
  process.stderr.write(`import-timing: ${message}\n`);
  process.exit(2);
}

const nginx = findNginx();
if (!nginx) fail('nginx is not installed (apt-get install nginx)');
if (!which('wget')) fail('wget is not installed (apt-get install wget)');
const docs = findPythonDocs();
if (docs.missing) fail(docs.missing);
const pages = Number(given.pages);
if (!Number.isInteger(pages) || pages < 1 || pages > 1_000_000) fail('--pages takes a whole number from 1 to 1000000');
const builds = [resolve(given.crawlite), ...(given.against ? [resolve(given.against)] : [])];
for (const build of builds) if (!existsSync(build)) fail(`${build} not found (npm run build)`);

const dir = given.keep ? resolve(given.keep) : makeTemp('import-timing');
mkdirSync(dir, { recursive: true });

/** wget's WARC of the site `root` serves (from `start`), made once and kept in `dir`. */
async function wgetWarc(name, root, start, port) {
  const warc = join(dir, `${name}.warc.gz`);
  if (existsSync(warc)) return warc;
  const serverDir = join(dir, `${name}-nginx`);
  mkdirSync(serverDir, { recursive: true });
  const server = await startNginx(nginx, { dir: serverDir, root, port });
  try {
    const out = join(dir, `${name}-files`);
    const run = spawnSync(
      'wget',
      ['-q', '-r', '-l', 'inf', '-np', '--no-warc-keep-log', '--warc-file', join(dir, name), '-P', out, `${server.origin}${start}`],
      { stdio: 'inherit' },
    );
    if (!existsSync(warc)) fail(`wget made no WARC (exit ${run.status})`);
  } finally {
    await server.stop();
  }
  return warc;
}

const docsWarc = await wgetWarc('python-docs', docs.dir, '/index.html');
const port = await freePort();
const siteRoot = join(dir, 'synthetic-site');
if (!existsSync(join(dir, 'synthetic.warc.gz'))) {
  mkdirSync(siteRoot, { recursive: true });
  writeSyntheticSite(siteRoot, pages, 1, `http://127.0.0.1:${port}`);
}
const siteWarc = await wgetWarc('synthetic', siteRoot, '/', port);

const rows = [];
for (const [label, warc] of [
  ['Python 3.11 docs (wget)', docsWarc],
  [`synthetic, ${pages} pages (wget)`, siteWarc],
]) {
  for (const build of builds) {
    for (let run = 0; run < Number(given.runs); run += 1) {
      const db = join(dir, `import-${rows.length}.sqlite`);
      const measured = await measureChild(process.execPath, [build, 'import', warc, '--db', db, '-q'], { cwd: dir, timeoutS: 1800 });
      const captures = spawnSync('sqlite3', [db, 'SELECT count(*) FROM captures'], { encoding: 'utf8' }).stdout.trim();
      rows.push({
        label,
        build,
        warcMB: statSync(warc).size / 2 ** 20,
        wallS: measured.wallS,
        cpuS: measured.cpuS,
        peakRssMB: measured.peakRssMB,
        captures,
        exit: measured.exitCode,
      });
      removeTemp(db);
      for (const suffix of ['-wal', '-shm']) if (existsSync(db + suffix)) removeTemp(db + suffix);
    }
  }
}
process.stdout.write('| WARC | MiB | crawlite build | captures | wall s | CPU s | peak RSS MB |\n|---|---|---|---|---|---|---|\n');
for (const row of rows) {
  process.stdout.write(
    `| ${row.label} | ${row.warcMB.toFixed(1)} | ${row.build} | ${row.captures} | ${row.wallS.toFixed(2)} | ${row.cpuS?.toFixed(2) ?? '?'} | ${row.peakRssMB?.toFixed(0) ?? '?'} |${row.exit ? ` exit ${row.exit}` : ''}\n`,
  );
}
if (!given.keep) removeTemp(dir);
