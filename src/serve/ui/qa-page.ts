import type { QaRow } from '../../storage/reader/index.js';
import { replayFramePath } from '../replay-frame.js';
import { captureTimestamp } from '../replay-url.js';
import { captureHref, formatCount, timeTag, truncate } from './format.js';
import { html } from './html.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const PAGE_SIZE = 100;
/** The summary's line between good and poor: `crawlite qa`'s default threshold. */
const THRESHOLD = 0.8;
const URL_SHOWN = 100;

const score = (value: number | null) => (value === null ? '—' : value.toFixed(2));
const percent = (share: number | null) => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);

function row(check: QaRow) {
  const replay = replayFramePath(check.url, captureTimestamp(check.fetchedAt));
  return html`<tr${check.score < THRESHOLD ? html` class="poor"` : ''}>
<td class="num qa-score">${score(check.score)}</td>
<td><a class="qa-replay" href="${replay}" title="${check.url}">${truncate(check.url, URL_SHOWN)}</a> <a class="muted" href="${`${captureHref(check.url)}&ts=${captureTimestamp(check.fetchedAt)}`}">details</a></td>
<td class="num">${percent(check.pixelDiff)}</td>
<td class="num">${score(check.textMatch)}</td>
<td class="num">${check.resourcesFailed} of ${check.resourcesLoaded + check.resourcesFailed}</td>
<td>${check.error ? html`<span class="error">${check.error}</span>` : ''}</td>
<td>${timeTag(check.checkedAt)}</td>
</tr>`;
}

/**
 * `/qa[?offset=]`: how faithfully each page replays, worst first, as `crawlite qa` scored it: each page
 * linked to its replay, with what brought its score down.
 */
export function qaPage(context: UiContext, params: URLSearchParams): UiPage {
  const offset = Number(params.get('offset') ?? 0);
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new UiHttpError(400, `offset must be a whole number of at least 0, got ${String(params.get('offset')).slice(0, 40)}`);
  const totals = context.facts.qaTotals(THRESHOLD);
  if (totals.checked === 0) {
    return {
      title: 'QA',
      body: html`<h1>Replay QA</h1><p id="qa-none">No page has been checked yet: run <code>crawlite qa ${context.archive.path}</code> (or crawl with <code>--browser --qa</code>).</p>`,
    };
  }
  const rows = context.facts.worstQaRows(PAGE_SIZE, offset);
  const next =
    offset + rows.length < totals.checked ? html`<a id="qa-next" href="${`/qa?offset=${offset + PAGE_SIZE}`}">next ${PAGE_SIZE} ›</a>` : '';
  return {
    title: 'QA',
    body: html`<h1>Replay QA</h1>
<p id="qa-summary">${formatCount(totals.checked)} pages checked: mean score ${score(totals.mean)}, median ${score(totals.median)}, ${formatCount(totals.below)} below ${THRESHOLD}. Worst first; each page opens in its replay.</p>
<table id="qa-table">
<thead><tr><th>score</th><th>page</th><th>pixels differing</th><th>text match</th><th>resources failed</th><th>error</th><th>checked</th></tr></thead>
<tbody>
${rows.map(row)}
</tbody>
</table>
<p>${offset > 0 ? html`<a id="qa-prev" href="${`/qa?offset=${Math.max(0, offset - PAGE_SIZE)}`}">‹ previous</a> ` : ''}${next}</p>`,
  };
}
