import { formatBytes } from '../format-bytes.js';
import type { ArchiveReport } from '../library/index.js';

export { formatBytes };

const perSecond = (count: number, report: ArchiveReport): number =>
  report.elapsedMs > 0 ? Math.round((count / report.elapsedMs) * 1000 * 10) / 10 : 0;

export const pagesPerSecond = (report: ArchiveReport): number => perSecond(report.pagesFetched, report);
export const responsesPerSecond = (report: ArchiveReport): number => perSecond(report.fetched, report);

const counts = (rows: { code: string; count: number }[]) =>
  rows.length ? rows.map((row) => `${row.code} ${row.count}`).join(', ') : 'none';

const notRead = ({ links, responses }: ArchiveReport['linksDropped']) =>
  links
    ? `${links} link references on ${responses} page${responses === 1 ? '' : 's'}, past --max-links-per-page (pages.links_dropped)`
    : 'none';

/** The end-of-run report as text: the seed crawler's totals, from the archive. */
export function formatReport(path: string, report: ArchiveReport, scope: 'run' | 'archive'): string {
  const { urls } = report;
  const statuses = report.byStatus.map((row) => `${row.status}: ${row.count}`).join(', ') || 'none';
  const time = scope === 'run' ? 'this run' : `${report.runs} run${report.runs === 1 ? '' : 's'}`;
  const fetched = report.runs > 0 || report.importRuns === 0;
  return [
    `Archive   ${path}`,
    `URLs      ${urls.total} seen: ${urls.done} done, ${urls.failed} failed, ${urls.skipped} skipped, ${urls.queued + urls.fetching} queued${report.shard ? ' here (a shard: other workers fetch those; crawlite merge the shards for the whole crawl)' : ''}`,
    `Pages     ${report.pages} stored; by status ${statuses}`,
    `Bytes     HTML ${formatBytes(report.htmlBytes)}, other ${formatBytes(report.otherBytes)}`,
    `Errors    ${counts(report.errors)}`,
    `Skipped   ${counts(report.skips)}`,
    `Not read  ${notRead(report.linksDropped)}`,
    // Only a browser crawl has any: a render that ran into a bound captured the page as it was then.
    ...(report.renderNotes.length ? [`Capped    ${counts(report.renderNotes)} renders (render_notes)`] : []),
    // Pages are what --max-pages counts; responses add requisites, robots.txt and sitemaps.
    ...(fetched
      ? [
          `Time      ${(report.elapsedMs / 1000).toFixed(1)} s in ${time}: ${report.pagesFetched} pages (${pagesPerSecond(report)}/s), ${report.fetched} responses in all (${responsesPerSecond(report)}/s)`,
        ]
      : []),
    // Read from WARC files, not fetched: no fetch rate.
    ...(report.importRuns > 0
      ? [
          `Imported  ${report.imported} response${report.imported === 1 ? '' : 's'} (${report.pagesImported} page${report.pagesImported === 1 ? '' : 's'}) from WARC files in ${scope === 'run' ? 'this run' : `${report.importRuns} import${report.importRuns === 1 ? '' : 's'}`}, ${(report.importMs / 1000).toFixed(1)} s`,
        ]
      : []),
  ].join('\n');
}

/** The same report for machines. */
export function reportJson(path: string, report: ArchiveReport): string {
  return JSON.stringify(
    { archive: path, ...report, pagesPerSecond: pagesPerSecond(report), responsesPerSecond: responsesPerSecond(report) },
    null,
    2,
  );
}
