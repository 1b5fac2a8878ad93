// Markdown on and off: there is no crawl-time Markdown (docs/markdown.md says why), so "on" is the crawl and
// then `crawlite markdown` of its archive. Measured on a copy of the crawled archive, so that what the case
// measures after (export, import, sizes, `crawlite compact`) reads the archive as the crawl left it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { measureChild } from './measure.mjs';
import { fixed } from './report.mjs';

/**
 * `crawlite markdown` of a copy of `db` (a finished crawl's archive, its WAL checkpointed), in `dir`: wall,
 * CPU and peak RSS of the command, the pages it gave Markdown, and the archive's size after.
 */
export async function measureMarkdownPass(bin, db, dir, { timeoutS }) {
  const copy = join(dir, 'markdown.sqlite');
  copyFileSync(db, copy);
  if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${copy}-wal`);
  const measured = await measureChild(bin, ['markdown', copy, '-q'], { cwd: dir, timeoutS });
  let converted;
  let empty;
  if (measured.exitCode === 0) {
    const [row] = JSON.parse(
      execFileSync(process.execPath, [bin, 'query', copy, "select count(*) n, sum(markdown = '') empty from page_markdown", '-f', 'json'], {
        encoding: 'utf8',
        timeout: 120_000,
      }),
    );
    converted = Number(row.n);
    empty = Number(row.empty ?? 0);
  }
  const archive = existsSync(copy) ? { fileBytes: statSync(copy).size } : undefined;
  // The copy goes at once: a synthetic case's archive is hundreds of MB, and the case goes on in `dir`.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  return {
    exitCode: measured.exitCode,
    timedOut: measured.timedOut,
    wallS: measured.wallS,
    cpuS: measured.cpuS,
    peakRssMB: measured.peakRssMB,
    pages: converted,
    empty,
    archive,
    output: measured.exitCode === 0 ? undefined : measured.output.trim().slice(-500),
  };
}

/** The run of the row "crawlite + markdown": the crawl's pages over the two commands' wall time together. */
export function crawlThenMarkdown(crawled, pass) {
  return {
    exitCode: crawled.exitCode || pass.exitCode,
    timedOut: crawled.timedOut || pass.timedOut,
    wallS: crawled.wallS + pass.wallS,
    cpuS: crawled.cpuS === undefined || pass.cpuS === undefined ? undefined : crawled.cpuS + pass.cpuS,
    peakRssMB: Math.max(crawled.peakRssMB ?? 0, pass.peakRssMB ?? 0) || undefined,
    pages: crawled.pages,
    requests: crawled.requests,
    archive: pass.archive,
  };
}

/** One line for a case's output: pages/s with Markdown off and on, and the markdown command's own figures. */
export function markdownLine(rows) {
  const { crawlite: off, crawliteMarkdown: on, markdown: pass } = rows;
  if (!on || !pass) return undefined;
  if (pass.exitCodes?.some((code) => code !== 0) || pass.pagesPerS === undefined)
    return `markdown: crawlite markdown failed (exit ${pass.exitCodes?.join('/') ?? '?'}${pass.timedOut ? ', row timeout' : ''})`;
  const share = off.pagesPerS ? ` = ${fixed(on.pagesPerS / off.pagesPerS, 2)} of off` : '';
  return (
    `markdown: off (the crawl alone) ${fixed(off.pagesPerS, 0)} pages/s; on (the crawl, then crawlite markdown) ${fixed(on.pagesPerS, 1)} pages/s${share}; ` +
    `crawlite markdown alone: ${pass.pages} pages in ${fixed(pass.wallS, 1)} s = ${fixed(pass.pagesPerS, 1)} pages/s, CPU ${fixed(pass.cpuS, 1)} s ` +
    `(${fixed(pass.cpuMsPerPage, 1)} ms per page), peak RSS ${fixed(pass.peakRssMB, 0)} MB`
  );
}
