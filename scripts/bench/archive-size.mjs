// What an archive costs on disk: its file as a crawl left it, after `crawlite compact`, against its own
// `crawlite export --warc` .warc.gz, and where the bytes are (SQLite's dbstat, grouped by what they hold).
// Table names are read from the file, not assumed: a table no group claims counts as "other".
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { measureChild } from './measure.mjs';

/** The groups of the breakdown, in the order they print. */
export const GROUPS = ['bodies', 'page text', 'search index', 'links', 'urls', 'responses', 'other'];

/** Decimal units, as the goals are written (36.5 KB per page, 20.8 MB). */
export const MB = 1e6;
export const KB = 1e3;

function query(bin, db, sql, timeoutS) {
  const out = execFileSync(process.execPath, [bin, 'query', db, sql, '-f', 'json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: timeoutS * 1_000,
  });
  return JSON.parse(out);
}

/** Which group a table (an index counts as its table) belongs to; `fts` lists the FTS5 tables. */
function groupOf(table, fts) {
  if (fts.some((name) => table === name || table.startsWith(`${name}_`))) return 'search index';
  if (/^body|sqlar/.test(table)) return 'bodies';
  if (/text/.test(table)) return 'page text';
  if (/link/.test(table)) return 'links';
  if (/^url/.test(table)) return 'urls';
  if (/^response/.test(table)) return 'responses';
  return 'other';
}

/**
 * The archive's bytes on disk (its -wal, if a writer left one, added) and their breakdown by table and
 * by group. Free pages count as "other" (a crawl's file has a few; a compacted one none).
 */
export function archiveSize(bin, db, { timeoutS = 600, top = 8 } = {}) {
  const fileBytes = statSync(db).size;
  const walBytes = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
  const fts = query(
    bin,
    db,
    "select name from sqlite_schema where type = 'table' and sql like 'create virtual table%using fts5%'",
    timeoutS,
  ).map((row) => row.name);
  // Every b-tree page by its object, an index counted with the table it indexes.
  const rows = query(
    bin,
    db,
    'select d.name name, coalesce(s.tbl_name, d.name) tbl, sum(d.pgsize) bytes from dbstat d left join sqlite_schema s on s.name = d.name group by 1, 2 order by 3 desc',
    timeoutS,
  );
  const [{ free, pageSize }] = query(
    bin,
    db,
    'select f.freelist_count free, p.page_size pageSize from pragma_freelist_count f, pragma_page_size p',
    timeoutS,
  );
  const groups = Object.fromEntries(GROUPS.map((group) => [group, 0]));
  for (const row of rows) groups[groupOf(row.tbl, fts)] += Number(row.bytes);
  const freeBytes = Number(free) * Number(pageSize);
  groups.other += freeBytes;
  return {
    fileBytes,
    walBytes,
    bytes: fileBytes + walBytes,
    freeBytes,
    groups,
    tables: rows.slice(0, top).map((row) => ({ name: row.name, bytes: Number(row.bytes) })),
  };
}

/**
 * The size rows of one crawled archive `db` (closed, its crawl ended): its size as crawled, its own
 * .warc.gz (`warc`, exported here unless an earlier step wrote it), then `crawlite compact` of it in
 * place, timed (wall and CPU), and its size after. `pages` is what per-page figures divide by.
 */
export async function measureSizes(bin, db, dir, { warc, pages, timeoutS, log }) {
  const crawled = archiveSize(bin, db, { timeoutS });
  let exported;
  if (!existsSync(warc)) {
    log('bench: crawlite export --warc of it, for its .warc.gz');
    const run = await measureChild(bin, ['export', db, '--warc', warc, '-q'], { cwd: dir, timeoutS });
    exported = { exitCode: run.exitCode, wallS: run.wallS, output: run.exitCode === 0 ? undefined : run.output.trim().slice(-500) };
  }
  const warcBytes = existsSync(warc) ? statSync(warc).size : undefined;
  log('bench: crawlite compact of it');
  const run = await measureChild(bin, ['compact', db, '-q'], { cwd: dir, timeoutS });
  const compact = {
    exitCode: run.exitCode,
    wallS: run.wallS,
    cpuS: run.cpuS,
    peakRssMB: run.peakRssMB,
    output: run.exitCode === 0 ? undefined : run.output.trim().slice(-500),
  };
  const compacted = run.exitCode === 0 ? archiveSize(bin, db, { timeoutS }) : undefined;
  return {
    pages,
    crawled,
    warcBytes,
    export: exported,
    compact,
    compacted,
    perPage: {
      crawled: pages ? crawled.bytes / pages : undefined,
      compacted: pages && compacted ? compacted.bytes / pages : undefined,
    },
    overWarc: {
      crawled: warcBytes ? crawled.bytes / warcBytes : undefined,
      compacted: warcBytes && compacted ? compacted.bytes / warcBytes : undefined,
    },
  };
}

const mb = (bytes) => (bytes === undefined ? '?' : (bytes / MB).toFixed(1));
const kb = (bytes) => (bytes === undefined ? '?' : (bytes / KB).toFixed(1));
const x = (value) => (value === undefined ? '?' : `${value.toFixed(2)}×`);

/**
 * One stdout line per archive kind: `sizes` from measureSizes, `compactCrawl` (text on only) the
 * archiveSize of a `crawl --compact` of the same site, with its page count.
 */
export function sizeLines({ textOn, noText, compactCrawl }) {
  const lines = [];
  const line = (label, sizes, extra = '') => {
    if (!sizes) return;
    const c = sizes.compact;
    const after =
      c.exitCode === 0
        ? `after crawlite compact ${mb(sizes.compacted.bytes)} MB (${kb(sizes.perPage.compacted)} KB/page) in ${c.wallS.toFixed(2)} s wall, ${c.cpuS?.toFixed(2) ?? '?'} s CPU`
        : `crawlite compact failed (exit ${c.exitCode}): ${c.output}`;
    const warc =
      sizes.warcBytes === undefined
        ? `no .warc.gz${sizes.export?.output ? ` (export failed: ${sizes.export.output})` : ''}`
        : `its .warc.gz ${mb(sizes.warcBytes)} MB`;
    lines.push(
      `sizes, ${label}: ${sizes.pages} pages; as crawled ${mb(sizes.crawled.bytes)} MB (${kb(sizes.perPage.crawled)} KB/page); ${after}${extra}; ` +
        `${warc}; compact / .warc.gz ${x(sizes.overWarc.compacted)} (as crawled ${x(sizes.overWarc.crawled)}${extra && compactCrawl && sizes.warcBytes ? `, --compact crawl ${x(compactCrawl.bytes / sizes.warcBytes)}` : ''})`,
    );
  };
  const compactPart = compactCrawl
    ? `; a crawl --compact ${mb(compactCrawl.bytes)} MB (${kb(compactCrawl.pages ? compactCrawl.bytes / compactCrawl.pages : undefined)} KB/page)`
    : '';
  line('text on', textOn, compactPart);
  line('--no-text', noText);
  return lines;
}

/** The breakdown for stderr: one line per archive measured, groups then the largest tables, in MB. */
export function breakdownLines(label, size) {
  if (!size) return [];
  const groups = GROUPS.map((group) => `${group} ${mb(size.groups[group])}`).join(', ');
  const tables = size.tables.map((table) => `${table.name} ${mb(table.bytes)}`).join(', ');
  return [
    `sizes, ${label}: ${mb(size.bytes)} MB${size.walBytes ? ` (-wal ${mb(size.walBytes)} MB included)` : ''}: ${groups} (largest: ${tables})`,
  ];
}
