// Turning runs into figures and tables: medians, one case's table, and the suite's summary table.

const median = (values) => {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** A row's figures: the median of its runs. */
export function summarize(row) {
  if (!row.runs.length) return row;
  const pick = (get) => median(row.runs.map(get));
  return {
    ...row,
    pages: pick((run) => run.pages),
    requests: pick((run) => run.requests),
    wallS: pick((run) => run.wallS),
    pagesPerS: pick((run) => (run.pages !== undefined && run.wallS > 0 ? run.pages / run.wallS : undefined)),
    cpuS: pick((run) => run.cpuS),
    cpuMsPerPage: pick((run) => (run.cpuS !== undefined && run.pages ? (run.cpuS * 1_000) / run.pages : undefined)),
    peakRssMB: pick((run) => run.peakRssMB),
    archiveMB: pick((run) => (run.archive?.fileBytes === undefined ? undefined : run.archive.fileBytes / 2 ** 20)),
    maxInFlight: pick((run) => run.server?.maxInFlight),
    avgInFlight: pick((run) => run.server?.avgInFlight),
    activeS: pick((run) => run.server?.activeS),
    connections: pick((run) => run.server?.connections),
    serverCpuS: pick((run) => run.server?.cpuS),
    bytes: pick((run) => run.server?.bytes ?? run.bytes),
    exitCodes: [...new Set(row.runs.map((run) => run.exitCode))],
    timedOut: row.runs.some((run) => run.timedOut),
  };
}

export const fixed = (value, digits) => (value === undefined || value === null || Number.isNaN(value) ? '–' : value.toFixed(digits));
export const whole = (value) => (value === undefined ? '–' : String(Math.round(value)));
export const grouped = (value) => (value === undefined ? '–' : Math.round(value).toLocaleString('en-US'));

/** Renders rows of cells as an aligned Markdown table; columns from `numericFrom` on are right-aligned. */
export function renderTable(lines, numericFrom = 1) {
  const widths = lines[0].map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  const numeric = (column) => column >= numericFrom;
  const render = (line) =>
    `| ${line.map((cell, column) => (numeric(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (numeric(column) ? `${'-'.repeat(width + 1)}:` : `:${'-'.repeat(width + 1)}`)).join('|')}|`;
  return [render(lines[0]), rule, ...lines.slice(1).map(render)].join('\n');
}

/** One case's table: every row with every figure. */
export function caseTable(rows, { rawRate, latency, rowTimeoutS }) {
  const header = [
    'row',
    'pages',
    'requests',
    'wall s',
    'active s',
    'pages/s',
    'CPU s',
    'CPU ms/page',
    'peak RSS MB',
    'vs raw',
    'in flight avg/max',
    'conns',
    'server CPU s',
    'archive MB',
  ];
  const lines = [header];
  for (const row of rows) {
    if (row.note) {
      lines.push([`${row.label.split(' ')[0]} — ${row.note}`, ...header.slice(1).map(() => '–')]);
      continue;
    }
    const flags = [
      row.timedOut ? `stopped at --row-timeout ${rowTimeoutS}` : '',
      row.exitCodes.some((code) => code !== 0) ? `exit ${row.exitCodes.join('/')}` : '',
    ]
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
      fixed(row.cpuMsPerPage, 2),
      fixed(row.peakRssMB, 0),
      row.pagesPerS !== undefined && rawRate ? `${(row.pagesPerS / rawRate).toFixed(2)}×` : '–',
      // a static response is written at once: one request at a time, whatever the client sends
      latency && row.maxInFlight !== undefined ? `${fixed(row.avgInFlight, 1)} / ${whole(row.maxInFlight)}` : '–',
      whole(row.connections),
      fixed(row.serverCpuS, 2),
      fixed(row.archiveMB, 1),
    ]);
  }
  return renderTable(lines);
}

const times = (value) => (value === undefined ? '–' : `${value.toFixed(2)}×`);

const perPage = (row) => (row?.cpuMsPerPage === undefined ? '–' : `${row.cpuMsPerPage.toFixed(2)} ms`);
const rss = (row) => (row?.peakRssMB === undefined ? '–' : `${row.peakRssMB.toFixed(0)} MB`);

/** The suite's table: one line per case, pages/s per row with the ratios the targets read. */
export function suiteTable(cases) {
  const header = [
    'corpus',
    'raw undici (fetch only)',
    'wget (1 connection)',
    'wget2',
    'crawlite',
    'crawlite CPU per page',
    'crawlite peak RSS',
    'crawlite --no-text',
    'crawlite --compact',
    'crawlite + markdown',
    'crawlite markdown alone',
    'stack floor (one thread)',
    'floor CPU per page',
    'floor peak RSS',
    'stack floor --no-text',
    'check',
  ];
  const lines = [header];
  for (const result of cases) {
    if (result.skipped) {
      lines.push([result.title, `skipped: ${result.skipped}`, ...header.slice(2).map(() => '–')]);
      continue;
    }
    const { raw, wget, wget2, crawlite, crawliteNoText, crawliteCompact, crawliteMarkdown, markdown, floor, floorNoText } = result.rows;
    const rate = (row) => (row.note ? row.note : row.pagesPerS === undefined ? '–' : `${row.pagesPerS.toFixed(0)}/s`);
    const vsRaw = (row) =>
      row.note || row.pagesPerS === undefined || !raw.pagesPerS ? '' : ` (${times(row.pagesPerS / raw.pagesPerS)} raw)`;
    const crawliteRatios = [
      raw.pagesPerS && crawlite.pagesPerS !== undefined ? `${times(crawlite.pagesPerS / raw.pagesPerS)} raw` : undefined,
      wget2.pagesPerS && crawlite.pagesPerS !== undefined ? `${times(crawlite.pagesPerS / wget2.pagesPerS)} wget2` : undefined,
      result.ideal && crawlite.pagesPerS !== undefined ? `${times(crawlite.pagesPerS / result.ideal)} ideal` : undefined,
      floor.pagesPerS && crawlite.pagesPerS !== undefined ? `${times(crawlite.pagesPerS / floor.pagesPerS)} floor` : undefined,
    ].filter(Boolean);
    // A --no-text row: its pages/s and CPU per page, or – where the case has none.
    const noText = (row) => (!row ? '–' : row.note ? row.note : `${rate(row)}, ${perPage(row)}`);
    lines.push([
      result.title,
      rate(raw),
      `${rate(wget)}${vsRaw(wget)}`,
      `${rate(wget2)}${vsRaw(wget2)}`,
      `${rate(crawlite)}${crawliteRatios.length ? ` (${crawliteRatios.join(', ')})` : ''}`,
      perPage(crawlite),
      rss(crawlite),
      noText(crawliteNoText),
      !crawliteCompact
        ? '–'
        : `${rate(crawliteCompact)}${crawliteCompact.pagesPerS !== undefined && crawlite.pagesPerS ? ` (${times(crawliteCompact.pagesPerS / crawlite.pagesPerS)} crawlite)` : ''}`,
      // Markdown on: the crawl, then `crawlite markdown` (pages over both walls); the markdown command alone.
      !crawliteMarkdown
        ? '–'
        : `${crawliteMarkdown.pagesPerS === undefined ? '–' : `${crawliteMarkdown.pagesPerS.toFixed(1)}/s`}${crawliteMarkdown.pagesPerS !== undefined && crawlite.pagesPerS ? ` (${times(crawliteMarkdown.pagesPerS / crawlite.pagesPerS)} crawlite)` : ''}`,
      !markdown
        ? '–'
        : `${markdown.pagesPerS === undefined ? '–' : `${markdown.pagesPerS.toFixed(1)}/s`}, ${perPage(markdown)}, ${rss(markdown)}`,
      `${rate(floor)}${vsRaw(floor)}`,
      floor.note ? '–' : perPage(floor),
      floor.note ? '–' : rss(floor),
      noText(floorNoText),
      result.checkOk ? 'OK' : 'FAILED',
    ]);
  }
  return renderTable(lines);
}
