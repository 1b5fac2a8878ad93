// What keeping every capture costs: `--recrawl-growth` crawls a synthetic site of --pages pages (default
// 10,000) served by a node:http server in this process, with an ETag on nine pages in ten, then re-crawls
// it --recrawls times (default 10) with ~2% of the pages changed before each, and reports the archive's
// size after each crawl and what each re-crawl added: bytes, bytes per changed page, bytes per capture row.
// The crawls run the built command (dist/bundle/crawlite.js) as a child process, as a user would.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { pageHtml, pageNumber, prng, ROBOTS_TXT } from './site.mjs';

const run = promisify(execFile);
/** One page in ten carries no validator: the re-crawl asks for it in full, and an unchanged body dedupes by digest. */
const hasEtag = (i) => i % 10 !== 3;

/** Serves the site; `revision[i]` is how many times page i changed. Counts what it answers, by status. */
function startSite(pages, seed, revision) {
  const answered = { 200: 0, 304: 0, 404: 0 };
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/robots.txt') {
      answered[200] += 1;
      return res.writeHead(200, { 'content-type': 'text/plain', etag: '"robots"' }).end(ROBOTS_TXT);
    }
    const i = pageNumber(path, pages);
    if (i < 0) {
      answered[404] += 1;
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    if (hasEtag(i)) {
      headers.etag = `"p${i}-r${revision[i]}"`;
      if (req.headers['if-none-match'] === headers.etag) {
        answered[304] += 1;
        return res.writeHead(304, headers).end();
      }
    }
    answered[200] += 1;
    // A change is a new paragraph at the end of the page: the page's size stays about the same.
    const change = revision[i] ? `<p>Revision ${revision[i]} of page ${i}.</p>` : '';
    res.writeHead(200, headers).end(pageHtml(i, pages, seed, origin).replace('</main>', `${change}</main>`));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      origin = `http://127.0.0.1:${server.address().port}`;
      resolve({ origin, answered, close: () => new Promise((done) => (server.closeAllConnections(), server.close(done))) });
    });
  });
}

const fileBytes = (db) => statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);

function counts(db) {
  const archive = new Database(db, { readonly: true });
  try {
    const one = (sql) => archive.prepare(sql).get().n;
    return {
      captures: one('SELECT count(*) AS n FROM capture'),
      bodies: one('SELECT count(*) AS n FROM body'),
      bodyBytes: one('SELECT coalesce(sum(size), 0) AS n FROM body'),
      revalidated: one('SELECT count(*) AS n FROM response WHERE revalidated = 1'),
      changed: one("SELECT count(*) AS n FROM changes WHERE change = 'changed'"),
      // Where the bytes are: capture rows and their index, bodies, and the text with its two search indexes.
      captureBytes: one("SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name IN ('capture', 'capture_url')"),
      bodyTableBytes: one("SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name = 'body' OR name LIKE 'sqlite_autoindex_body%'"),
      textBytes: one("SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name LIKE 'page_text%'"),
      freeBytes: one('SELECT (SELECT freelist_count FROM pragma_freelist_count) * (SELECT page_size FROM pragma_page_size) AS n'),
    };
  } finally {
    archive.close();
  }
}

export async function measureRecrawlGrowth(bin, dir, { pages, recrawls, seed, concurrency, changeShare = 0.02, log }) {
  const revision = new Uint32Array(pages);
  const site = await startSite(pages, seed, revision);
  const db = join(dir, 'growth.sqlite');
  const rand = prng(seed);
  const rows = [];
  try {
    const crawl = async (args) => {
      const started = performance.now();
      await run(process.execPath, [bin, ...args, '-c', String(concurrency), '-q'], { maxBuffer: 1 << 20 });
      return (performance.now() - started) / 1000;
    };
    log(`bench: recrawl growth: crawling ${pages} pages`);
    let seconds = await crawl(['crawl', `${site.origin}/`, '--db', db]);
    let before = { bytes: fileBytes(db), ...counts(db) };
    rows.push({ crawl: 1, seconds, changedPages: pages, ...before, grewBytes: before.bytes, capturesAdded: 0 });
    for (let n = 2; n <= recrawls + 1; n += 1) {
      const changed = new Set();
      while (changed.size < Math.max(1, Math.round(pages * changeShare))) changed.add(Math.floor(rand() * pages));
      for (const i of changed) revision[i] += 1;
      log(`bench: recrawl growth: re-crawl ${n - 1} of ${recrawls}, ${changed.size} pages changed`);
      seconds = await crawl(['recrawl', db]);
      const after = { bytes: fileBytes(db), ...counts(db) };
      const grewBytes = after.bytes - before.bytes;
      const capturesAdded = after.captures - before.captures;
      rows.push({
        crawl: n,
        seconds,
        changedPages: changed.size,
        ...after,
        grewBytes,
        capturesAdded,
        bytesPerChangedPage: grewBytes / changed.size,
        bytesPerCapture: grewBytes / capturesAdded,
      });
      before = after;
    }
  } finally {
    await site.close();
  }
  return { pages, recrawls, concurrency, changeShare, etagShare: 0.9, rows };
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);

export function recrawlGrowthLines(result) {
  const lines = [
    `recrawl growth: ${result.pages} pages (ETag on 90%), ${result.recrawls} re-crawls with ${(result.changeShare * 100).toFixed(0)}% of the pages changed before each, -c ${result.concurrency}`,
    'crawl  seconds  changed  304s    captures  bodies  archive MB  grew MB  bytes/changed page  bytes/capture row  capture MB  body MB  text MB  free MB',
  ];
  for (const row of result.rows) {
    lines.push(
      [
        String(row.crawl).padStart(5),
        row.seconds.toFixed(1).padStart(8),
        String(row.changedPages).padStart(8),
        String(row.revalidated).padStart(5),
        String(row.captures).padStart(11),
        String(row.bodies).padStart(7),
        mb(row.bytes).padStart(11),
        mb(row.grewBytes).padStart(8),
        (row.bytesPerChangedPage === undefined ? '' : Math.round(row.bytesPerChangedPage).toLocaleString('en')).padStart(19),
        (row.bytesPerCapture === undefined ? '' : Math.round(row.bytesPerCapture).toLocaleString('en')).padStart(18),
        mb(row.captureBytes).padStart(11),
        mb(row.bodyTableBytes).padStart(8),
        mb(row.textBytes).padStart(8),
        mb(row.freeBytes).padStart(8),
      ].join(' '),
    );
  }
  const later = result.rows.slice(1);
  if (later.length) {
    const grew = later.reduce((sum, row) => sum + row.grewBytes, 0);
    const changed = later.reduce((sum, row) => sum + row.changedPages, 0);
    const captures = later.reduce((sum, row) => sum + row.capturesAdded, 0);
    lines.push(
      `per re-crawl on average: ${mb(grew / later.length)} MB, ${Math.round(grew / changed).toLocaleString('en')} bytes per changed page, ` +
        `${Math.round(grew / captures).toLocaleString('en')} bytes per capture row; the first crawl: ${mb(result.rows[0].bytes)} MB`,
    );
  }
  return lines;
}
