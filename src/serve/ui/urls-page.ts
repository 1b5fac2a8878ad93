import {
  mediaType,
  SCAN_ROWS,
  screenshotType,
  STATUS_CLASSES,
  type StatusClass,
  type UrlListingFilter,
  type UrlListingRow,
} from '../../storage/reader/index.js';
import { html } from './html.js';
import { captureHref, formatBytes, formatCount, timeTag, truncate } from './format.js';
import { screenshotHref } from './screenshot-image.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const STATES = ['queued', 'fetching', 'done', 'failed', 'skipped'] as const;
const KINDS = ['page', 'requisite', 'sitemap', 'robots'] as const;
const PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
/** Characters of a title shown in the list; the whole stored line is on hover. */
const TITLE_SHOWN = 80;
const MAX_TYPE_LENGTH = 200;

function oneOf<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UiHttpError(400, `${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

function filterOf(params: URLSearchParams): UrlListingFilter {
  const filter: UrlListingFilter = {};
  const statusClass = oneOf<StatusClass>(params, 'status', STATUS_CLASSES);
  const state = oneOf(params, 'state', STATES);
  const kind = oneOf(params, 'kind', KINDS);
  const host = params.get('host') || undefined;
  const text = params.get('text') || undefined;
  const contentType = params.get('type')?.trim().toLowerCase() || undefined;
  if (contentType !== undefined && contentType.length > MAX_TYPE_LENGTH)
    throw new UiHttpError(400, `type must be a media type such as text/html, got "${contentType.slice(0, 40)}…"`);
  if (statusClass) filter.statusClass = statusClass;
  if (state) filter.state = state;
  if (kind) filter.kind = kind;
  if (host) filter.host = host;
  if (text) filter.text = text;
  if (contentType) filter.contentType = contentType;
  return filter;
}

const select = (name: string, values: readonly string[], chosen: string | undefined) =>
  html`<label>${name}<select name="${name}"><option value="">any</option>${values.map(
    (value) => html`<option${value === chosen ? html` selected` : ''}>${value}</option>`,
  )}</select></label>`;

/** The archive's media types, most responses first, each with its count; a chosen type not among them is kept. */
function typeSelect(context: UiContext, chosen: string | undefined) {
  const types = context.facts.mediaTypeCounts();
  const options =
    chosen !== undefined && !types.some((row) => row.type === chosen) ? [...types, { type: chosen, count: undefined }] : types;
  return html`<label>type<select name="type"><option value="">any</option>${options.map(
    (row) =>
      html`<option value="${row.type}"${row.type === chosen ? html` selected` : ''}>${row.type}${row.count === undefined ? '' : ` (${formatCount(row.count)})`}</option>`,
  )}</select></label>`;
}

/** A page's title, cut to a line; the stored line is on hover. Archived text, escaped like all of it. */
const titleCell = (title: string | null) => {
  if (!title) return html`<td class="title"></td>`;
  const shown = truncate(title, TITLE_SHOWN);
  return html`<td class="title"${shown === title ? '' : html` title="${title}"`}>${shown}</td>`;
};

/** The media type the list filters by; the Content-Type as sent, when it says more, on hover. */
const typeCell = (row: UrlListingRow) => {
  if (row.status === null) return html`<td class="type"></td>`;
  const type = mediaType(row.contentType);
  return html`<td class="type"${row.contentType !== null && row.contentType !== type ? html` title="${truncate(row.contentType, MAX_TYPE_LENGTH)}"` : ''}>${type}</td>`;
};

/** A mark on a URL whose latest capture has a screenshot of an image type, linking to the image; no image is read for the list. */
const screenshotMark = (row: UrlListingRow) =>
  screenshotType(row.screenshotType)
    ? html` <a class="screenshot-mark" href="${screenshotHref(row.url)}" title="screenshot of the latest capture" aria-label="screenshot">▣</a>`
    : '';

/** `/urls`: every URL seen, filtered by GET parameters, a page at a time after the last URL shown. */
export function urlsPage(context: UiContext, params: URLSearchParams): UiPage {
  const filter = filterOf(params);
  const after = params.get('after') ?? '';
  const limitText = params.get('limit') ?? String(PAGE_SIZE);
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_PAGE_SIZE) {
    throw new UiHttpError(400, `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got "${limitText}"`);
  }
  const limit = Number(limitText);
  const page = context.facts.listUrls(filter, { after, limit });
  const nextParams = new URLSearchParams([...params].filter(([name]) => name !== 'after'));
  if (page.next !== undefined) nextParams.set('after', page.next);
  const body = html`<h1>URLs</h1>
<form class="filters" id="url-filters" action="/urls" method="get">
${select('status', STATUS_CLASSES, filter.statusClass)}
${select('state', STATES, filter.state)}
${select('kind', KINDS, filter.kind)}
${typeSelect(context, filter.contentType)}
<label>host<input name="host" value="${filter.host ?? ''}" placeholder="https://example.com"></label>
<label>URL contains<input name="text" value="${filter.text ?? ''}"></label>
<button type="submit">Filter</button>
<a href="/urls">clear</a>
</form>
${after ? html`<p class="muted">After <span class="url">${after}</span> · <a href="/urls?${new URLSearchParams([...params].filter(([name]) => name !== 'after')).toString()}">first page</a></p>` : ''}
<table id="urls"><thead><tr><th>URL</th><th>title</th><th>state</th><th class="num">status</th><th>type</th><th class="num">size</th><th>fetched</th><th class="num">depth</th><th>kind</th></tr></thead><tbody>
${page.rows.map(
  (row) =>
    html`<tr><td class="url">${row.status !== null ? html`<a href="${captureHref(row.url)}">${row.url}</a>` : row.url}${screenshotMark(row)}${row.error ? html`<div class="muted">${row.error}</div>` : ''}</td>${titleCell(row.title)}<td>${row.state}</td><td class="num">${row.status ?? ''}</td>${typeCell(row)}<td class="num">${row.size === null ? '' : formatBytes(row.size)}</td><td class="time">${row.fetchedAt ? timeTag(row.fetchedAt) : ''}</td><td class="num">${row.depth}</td><td>${row.kind}</td></tr>\n`,
)}
</tbody></table>
${page.rows.length === 0 ? html`<p class="muted">No URLs${after ? ' after this one' : ''} match.</p>` : ''}
<p class="pager">${
    page.next === undefined
      ? html`<span class="muted">end of the list</span>`
      : page.partial
        ? html`<span class="muted">${page.rows.length} found among the next ${formatCount(SCAN_ROWS)} URLs, up to ${page.next}.</span> <a id="next" rel="next" href="/urls?${nextParams.toString()}">look further →</a>`
        : html`<a id="next" rel="next" href="/urls?${nextParams.toString()}">next ${limit} →</a>`
  }</p>`;
  return { title: 'URLs', body };
}
