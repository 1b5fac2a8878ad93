import { CrawliteError } from '../../crawlite-error.js';
import { escapeHtml, html, trusted } from './html.js';
import { captureHref, timeTag } from './format.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const PAGE_SIZE = 20;
// Characters from Unicode's private use area mark the matches: the snippet is escaped
// whole first, then only these become <mark> tags, so archived text cannot add markup.
const MARK_START = '\uE000';
const MARK_END = '\uE001';

/** An escaped snippet with its matches in <mark>. */
export function markSnippet(snippet: string): string {
  return escapeHtml(snippet).replaceAll(MARK_START, '<mark>').replaceAll(MARK_END, '</mark>');
}

/**
 * What the user is told, by code: a query to fix (400), an archive without the search tables
 * (older, never reindexed: 501), a search stopped at its time limit or refused while others run (503).
 */
const SEARCH_REFUSALS: Record<string, number> = {
  BAD_SEARCH_QUERY: 400,
  NOTHING_TO_SEARCH: 400,
  SEARCH_TOO_LARGE: 400,
  SEARCH_NOT_INDEXED: 501,
  SEARCH_TIMEOUT: 503,
  SEARCH_BUSY: 503,
};

/** `mode=fts` (the checkbox) reads the query as FTS5 syntax; without it (or `mode=typed`), as typed. */
function searchMode(params: URLSearchParams): 'typed' | 'fts' {
  const mode = params.get('mode') || 'typed';
  if (mode !== 'typed' && mode !== 'fts') throw new UiHttpError(400, `mode must be typed or fts, got "${mode.slice(0, 40)}"`);
  return mode;
}

/** `/search?q=[&mode=fts]`: full-text search of the archived pages. */
export async function searchPage(context: UiContext, params: URLSearchParams): Promise<UiPage> {
  const query = (params.get('q') ?? '').trim();
  const mode = searchMode(params);
  const offsetText = params.get('offset') ?? '0';
  if (!/^\d{1,9}$/.test(offsetText)) throw new UiHttpError(400, `offset must be a whole number, got "${offsetText}"`);
  const offset = Number(offsetText);
  const form = html`<h1>Search</h1>
<form id="search" action="/search" method="get" role="search">
<input name="q" type="search" value="${query}" placeholder="words, sys.path, &quot;a phrase&quot;" autofocus>
<label><input name="mode" type="checkbox" value="fts"${mode === 'fts' ? html` checked` : ''}> FTS5 syntax (OR, NOT, NEAR, prefix*)</label>
<button type="submit">Search</button>
</form>`;
  if (!context.search) {
    return {
      status: 501,
      title: 'Search',
      body: html`${form}<p class="error" id="search-error">Full-text search is not available in this build of crawlite.</p>`,
    };
  }
  if (!query) return { title: 'Search', body: form };
  let hits;
  try {
    hits = await context.search(query, { limit: PAGE_SIZE + 1, offset, mode, markStart: MARK_START, markEnd: MARK_END });
  } catch (error) {
    const status = error instanceof CrawliteError && Object.hasOwn(SEARCH_REFUSALS, error.code) ? SEARCH_REFUSALS[error.code] : undefined;
    if (status !== undefined)
      return { status, title: 'Search', body: html`${form}<p class="error" id="search-error">${(error as Error).message}</p>` };
    throw error;
  }
  const more = hits.length > PAGE_SIZE;
  const shown = hits.slice(0, PAGE_SIZE);
  const next = new URLSearchParams({ q: query, ...(mode === 'fts' ? { mode } : {}), offset: String(offset + PAGE_SIZE) });
  const body = html`${form}
${shown.length ? '' : html`<p class="muted">No pages match.</p>`}
<ol class="hits" id="hits" start="${offset + 1}">
${shown.map(
  (
    hit,
  ) => html`<li><a href="${captureHref(hit.url)}">${hit.title || hit.url}</a> <span class="muted">${hit.status} · ${timeTag(hit.fetchedAt)}</span>
${hit.section ? html`<div class="section">§ ${hit.section}</div>` : ''}<div class="muted url">${hit.url}</div><div class="snippet">${trusted(markSnippet(hit.snippet))}</div></li>\n`,
)}
</ol>
${more ? html`<p class="pager"><a id="next" rel="next" href="/search?${next.toString()}">more results →</a></p>` : ''}`;
  return { title: `Search: ${query}`, body };
}
