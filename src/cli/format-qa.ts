import type { QaReport, QaRow } from '../library/index.js';

const score = (value: number | null) => (value === null ? '-' : value.toFixed(2));
const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.001 ? 2 : 1)}%`;

/** One worst page: its score, then what brought it down. */
function worstLine(row: QaRow): string {
  const facts = row.error
    ? [row.error]
    : [
        ...(row.pixelDiff === null ? [] : [`${percent(row.pixelDiff)} of pixels differ`]),
        ...(row.textMatch === null ? [] : [`text match ${score(row.textMatch)}`]),
        `${row.resourcesFailed} of ${row.resourcesLoaded + row.resourcesFailed} resources failed`,
      ];
  return `  ${score(row.score)}  ${row.url}  (${facts.join(', ')})`;
}

/**
 * The summary `crawlite qa` (and `crawl --qa`) prints: one line of counts, then the worst pages, one a
 * line, worst first.
 */
export function formatQaReport(report: QaReport): string {
  const pages = (n: number) => `${n} page${n === 1 ? '' : 's'}`;
  const head = `qa: ${pages(report.checked)} checked of ${report.total}, mean score ${score(report.mean)}, median ${score(report.median)}, ${report.below} below ${report.threshold}${
    report.errors ? `, ${report.errors} not measured` : ''
  } (${(report.ms / 1000).toFixed(1)} s)`;
  if (report.worst.length === 0) return head;
  return [head, 'worst:', ...report.worst.map(worstLine)].join('\n');
}
