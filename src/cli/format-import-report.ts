import type { ImportProgress as ImportTally } from '../library/import.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');

/** The progress line printed on stderr while an import runs. */
export function formatImportProgress(tally: ImportTally): string {
  return `imported ${plural(tally.pages, 'page')} from ${plural(tally.records, 'record')} (file ${tally.files})`;
}

/** The end-of-import report. */
export function formatImportReport(dbPath: string, tally: ImportTally): string {
  const lines = [
    `imported into ${dbPath} from ${plural(tally.files, 'WARC file')}: ${plural(tally.records, 'record')} read, ${plural(tally.pages, 'response')} imported` +
      (tally.revisits ? ` (${tally.revisits} of them revisit records resolved to their original payload)` : ''),
  ];
  if (tally.listedPages !== undefined) lines.push(`  listed as pages by the WACZ (pages.jsonl): ${plural(tally.listedPages, 'response')}`);
  if (tally.merged)
    lines.push(
      `  merged: ${tally.merged} the same as a capture already stored (URL, time, status, headers and payload; only the WARC-Record-ID differs)`,
    );
  const skipped = Object.values(tally.skipped).reduce((a, b) => a + b, 0);
  if (skipped) lines.push(`  responses not imported: ${skipped} (${listed(tally.skipped)})`);
  if (tally.screenshots) lines.push(`  screenshots: ${tally.screenshots}, each with the page capture it shows`);
  if (Object.keys(tally.otherRecords).length) lines.push(`  other records passed over: ${listed(tally.otherRecords)}`);
  if (tally.problems)
    lines.push(
      `  damaged input: ${plural(tally.problems, 'problem')} (listed above); every record outside the damaged stretches was imported`,
    );
  if (tally.stopped) lines.push('  stopped before the end; what was read is committed, and importing the same files again replaces it');
  lines.push(`  see it with: crawlite stats ${dbPath}`);
  return lines.join('\n');
}
