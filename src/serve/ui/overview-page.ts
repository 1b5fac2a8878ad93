import type { ArchiveOverview, HostCount } from '../../storage/reader/index.js';
import { html } from './html.js';
import { formatBytes, formatCount, timeTag } from './format.js';
import type { UiContext, UiPage } from './ui-context.js';

/** `/`: what `crawlite stats` prints, plus runs, types, hosts and a chart of fetches over time. */
export function overviewPage(context: UiContext): UiPage {
  const report = context.archive.report();
  const overview = context.facts.overview();
  const roots = context.archive.crawlDefinition()?.roots ?? [];
  const { urls } = report;
  const urlStates = [
    ['done', urls.done],
    ['failed', urls.failed],
    ['skipped', urls.skipped],
    ['queued', urls.queued],
    ['fetching', urls.fetching],
  ] as const;
  const countTable = (id: string, head: string, rows: Array<{ label: string; count: number; href?: string }>) =>
    html`<table id="${id}"><thead><tr><th>${head}</th><th class="num">count</th></tr></thead><tbody>
${rows.map((row) => html`<tr><td>${row.href ? html`<a href="${row.href}">${row.label}</a>` : row.label}</td><td class="num">${formatCount(row.count)}</td></tr>\n`)}
</tbody></table>`;
  const body = html`<h1>Overview</h1>
<section id="roots"><h2>Roots</h2>
${roots.length ? html`<ul>${roots.map((root) => html`<li><a href="/urls?text=${encodeURIComponent(root)}">${root}</a></li>`)}</ul>` : html`<p class="muted">No crawl definition stored (an import, or an empty archive).</p>`}
<p>First run started ${timeTag(overview.runs.first)}, last run ended ${timeTag(overview.runs.last)} (${report.runs} runs).</p>
<p><a id="changes-link" href="/changes">What changed between the last two crawls</a> · <a id="live-link" href="/live">Watch and steer a running crawl</a></p>
</section>
<div class="grid">
<section><h2>URLs</h2>
${countTable('url-states', 'state', [
  ...urlStates.map(([state, count]) => ({ label: state, count, href: `/urls?state=${state}` })),
  { label: 'total', count: urls.total, href: '/urls' },
])}
</section>
<section><h2>Responses by status</h2>
${countTable(
  'statuses',
  'status',
  report.byStatus.map((row) => ({ label: String(row.status), count: row.count, href: `/urls?status=${String(row.status)[0]}xx` })),
)}
</section>
<section><h2>Bytes</h2>
<table id="bytes"><tbody>
<tr><td>responses stored</td><td class="num">${formatCount(report.pages)}</td></tr>
<tr><td>HTML</td><td class="num">${formatBytes(report.htmlBytes)}</td></tr>
<tr><td>other</td><td class="num">${formatBytes(report.otherBytes)}</td></tr>
<tr><td>pages fetched (kind page)</td><td class="num">${formatCount(report.pagesFetched)}</td></tr>
<tr><td>links not read (cap)</td><td class="num">${formatCount(report.linksDropped.links)}</td></tr>
</tbody></table>
</section>
<section><h2>Content types</h2>
${countTable(
  'content-types',
  'type',
  overview.contentTypes.map((row) => ({ label: row.type, count: row.count, href: `/urls?type=${encodeURIComponent(row.type)}` })),
)}
</section>
<section><h2>Errors</h2>
${
  report.errors.length
    ? countTable(
        'errors',
        'error',
        report.errors.map((row) => ({ label: row.code, count: row.count, href: '/urls?state=failed' })),
      )
    : html`<p class="muted">None.</p>`
}
</section>
<section><h2>Skipped</h2>
${
  report.skips.length
    ? countTable(
        'skips',
        'reason',
        report.skips.map((row) => ({ label: row.code, count: row.count, href: '/urls?state=skipped' })),
      )
    : html`<p class="muted">None.</p>`
}
</section>
</div>
${hostsSection(overview)}
<section><h2>Responses over time</h2>
<div id="timeline"></div>
</section>`;
  return {
    title: 'Overview',
    body,
    scripts: ['/assets/uPlot.iife.min.js', '/assets/timeline.js'],
    styles: ['/assets/uPlot.min.css'],
  };
}

const hostLink = (host: HostCount) =>
  host.origin ? html`<a href="/urls?host=${encodeURIComponent(host.origin)}">${host.origin}</a>` : '(unknown)';

const moreHosts = (shown: number, total: number) =>
  total > shown ? html`<p class="muted">and ${formatCount(total - shown)} more hosts.</p>` : '';

/**
 * The hosts crawled, most pages fetched first; apart and folded, the hosts only found as link
 * targets, which on most crawls outnumber the site's own URLs and would otherwise head the list.
 */
function hostsSection(overview: ArchiveOverview) {
  const { crawledHosts: crawled, seenHosts: seen, hostTotals: totals } = overview;
  return html`<section id="hosts-section"><h2>Hosts crawled (${formatCount(totals.crawled)})</h2>
${
  crawled.length
    ? html`<table id="hosts"><thead><tr><th>origin</th><th class="num">fetched</th><th class="num">failed</th><th class="num">URLs seen</th></tr></thead><tbody>
${crawled.map((host) => html`<tr><td>${hostLink(host)}</td><td class="num">${formatCount(host.fetched)}</td><td class="num">${formatCount(host.failed)}</td><td class="num">${formatCount(host.seen)}</td></tr>\n`)}
</tbody></table>
${moreHosts(crawled.length, totals.crawled)}`
    : html`<p class="muted">Nothing fetched yet.</p>`
}
${
  seen.length
    ? html`<details id="seen-hosts-section"><summary>Hosts only linked to, nothing fetched (${formatCount(totals.seen)})</summary>
<table id="seen-hosts"><thead><tr><th>origin</th><th class="num">URLs seen</th></tr></thead><tbody>
${seen.map((host) => html`<tr><td>${hostLink(host)}</td><td class="num">${formatCount(host.seen)}</td></tr>\n`)}
</tbody></table>
${moreHosts(seen.length, totals.seen)}</details>`
    : ''
}
</section>`;
}
