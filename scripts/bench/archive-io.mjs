// Archive out and in: after a crawl, `crawlite export --warc` of its archive and `crawlite import` of that
// WARC into a fresh archive, each a child process measured like the rows (wall, CPU, peak RSS).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { measureChild } from './measure.mjs';

/**
 * Measures the export of `db` to a WARC and the import of that WARC, in `dir`. `bodyBytes` is what the
 * archive's bodies hold (the export's MB/s is of those); `responses` how many responses it has.
 */
export async function measureArchiveIo(bin, db, dir, { bodyBytes, responses, timeoutS }) {
  const warc = join(dir, 'bench.warc.gz');
  const exported = await measureChild(bin, ['export', db, '--warc', warc, '-q'], { cwd: dir, timeoutS });
  const out = {
    exitCode: exported.exitCode,
    wallS: exported.wallS,
    cpuS: exported.cpuS,
    peakRssMB: exported.peakRssMB,
    bodyMB: bodyBytes / 2 ** 20,
    warcMB: existsSync(warc) ? statSync(warc).size / 2 ** 20 : undefined,
    mbPerS: exported.exitCode === 0 ? bodyBytes / 2 ** 20 / exported.wallS : undefined,
    output: exported.exitCode === 0 ? undefined : exported.output.trim().slice(-500),
  };
  if (exported.exitCode !== 0) return { export: out };
  const imported = await measureChild(bin, ['import', warc, '--db', join(dir, 'imported.sqlite'), '-q'], { cwd: dir, timeoutS });
  return {
    export: out,
    import: {
      exitCode: imported.exitCode,
      wallS: imported.wallS,
      cpuS: imported.cpuS,
      peakRssMB: imported.peakRssMB,
      responses,
      pagesPerS: imported.exitCode === 0 ? responses / imported.wallS : undefined,
      output: imported.exitCode === 0 ? undefined : imported.output.trim().slice(-500),
    },
  };
}

/** One line for a case's output: what export and import did, or why they did not. */
export function archiveIoLine(io) {
  if (!io) return undefined;
  const e = io.export;
  const mb = (value) => (value === undefined ? '?' : value.toFixed(1));
  const exportPart =
    e.exitCode === 0
      ? `export --warc: ${mb(e.bodyMB)} MiB of bodies (a ${mb(e.warcMB)} MiB .warc.gz) in ${e.wallS.toFixed(2)} s = ${mb(e.mbPerS)} MiB/s, CPU ${e.cpuS?.toFixed(2) ?? '?'} s, peak RSS ${e.peakRssMB?.toFixed(0) ?? '?'} MB`
      : `export --warc failed (exit ${e.exitCode}): ${e.output}`;
  const i = io.import;
  const importPart = !i
    ? ''
    : i.exitCode === 0
      ? `; import of that WARC: ${i.responses} responses in ${i.wallS.toFixed(2)} s = ${i.pagesPerS.toFixed(0)} pages/s, CPU ${i.cpuS?.toFixed(2) ?? '?'} s, peak RSS ${i.peakRssMB?.toFixed(0) ?? '?'} MB`
      : `; import failed (exit ${i.exitCode}): ${i.output}`;
  return `archive out and in: ${exportPart}${importPart}`;
}
