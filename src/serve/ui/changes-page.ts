import { CrawliteError } from '../../crawlite-error.js';
import { isCutCell, type DiffSide } from '../../storage/query/index.js';
import { CHANGE_KINDS, changeCountsQuery, changesPageQuery, type ChangeKind } from '../../storage/reader/index.js';
import type { UiDiff } from '../diff-mount.js';
import type { UiSql } from '../sql-mount.js';
import { html, type Html } from './html.js';
import { captureHref, formatCount, timeTag } from './format.js';
import { formatBytes } from '../../format-bytes.js';
import { sqlRefusal } from './sql-refusal.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const PAGE_SIZE = 100;
/** Characters of a listed URL: far past the longest a crawl stores (MAX_URL_LENGTH, 8 Ki). */
const LISTED_CELL_CHARS = 64 * 1024;
/** What the list shows unless a kind is asked for: a re-crawl leaves most URLs unchanged, which would bury the changes. */
const LISTED: readonly ChangeKind[] = CHANGE_KINDS.filter((kind) => kind !== 'unchanged');

const changesHref = (params: Record<string, string | number>) =>
  `/changes?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)])).toString()}`;

function crawlParam(params: URLSearchParams, name: 'from' | 'to', crawls: readonly number[]): number | undefined {
  const text = params.get(name);
  if (text === null || text === '') return undefined;
  if (!/^\d{1,9}$/.test(text))
    throw new UiHttpError(400, `${name} must be a crawl number (1 is the first crawl), got "${text.slice(0, 40)}"`);
  const crawl = Number(text);
  if (!crawls.includes(crawl)) throw new UiHttpError(404, `crawl ${crawl} is not in this archive: it holds crawls ${crawls.join(', ')}`);
  return crawl;
}

function crawlForm(crawls: readonly number[], from: number, to: number, url: string | null): Html {
  const select = (name: string, chosen: number) =>
    html`<label>${name} crawl <select name="${name}">${crawls.map((crawl) => html`<option${crawl === chosen ? html` selected` : ''}>${crawl}</option>`)}</select></label>`;
  return html`<form class="filters" id="crawls" action="/changes" method="get">${select('from', from)} ${select('to', to)}${url ? html`<input type="hidden" name="url" value="${url}">` : ''}<button type="submit">Compare</button></form>`;
}

const page = (body: Html, status?: number): UiPage => ({
  ...(status !== undefined ? { status } : {}),
  title: 'Changes',
  body,
  styles: ['/assets/sql.css'],
});

/** A unified diff as lines, each escaped and classed by what it is. */
function diffLines(patch: string): Html {
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const kind = (line: string) =>
    line.startsWith('+++') || line.startsWith('---') || line.startsWith('====') || line.startsWith('Index:')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'same';
  return html`<pre id="diff">${lines.map((line) => html`<div class="${kind(line)}">${line || ' '}</div>`)}</pre>`;
}

/** What was left out of the comparison: the end of a large capture (never read), the end of a long text (never compared). */
function bounds(diff: UiDiff, sides: readonly DiffSide[]): Html {
  const bodyCut = sides.filter((side) => side.bodyCut);
  const textCut = sides.some((side) => side.textCut);
  return html`${
    bodyCut.length
      ? html`<p class="muted" id="diff-body-cut">The first ${formatBytes(diff.limits.bodyBytes)} of each capture are read (${bodyCut.map((side) => `crawl ${side.crawl}: ${formatBytes(side.bytes)}`).join(', ')}).</p>`
      : ''
  }${textCut ? html`<p class="muted" id="diff-text-cut">The first ${formatCount(diff.limits.textChars)} characters of each text are compared.</p>` : ''}`;
}

/**
 * `/changes?url=[&from=&to=]`: how one page's text changed between two crawls, as `crawlite diff --url` prints it,
 * bounded (diff-mount.ts) and worked out in a process of its own, so serve answers everything else meanwhile.
 */
async function pageDiff(context: UiContext, asked: string, from: number, to: number): Promise<{ body: Html; status?: number }> {
  const heading = (url: string) =>
    html`<h2 id="diff-of">How <a href="${captureHref(url)}" class="url">${url}</a> changed, crawl ${from} → crawl ${to}</h2>`;
  if (!context.diff)
    return { status: 501, body: html`${heading(asked)}<p class="error" id="diff-error">Comparing texts is not available here.</p>` };
  let diff;
  try {
    diff = await context.diff.diff({ url: asked, from, to });
  } catch (error) {
    if (!(error instanceof CrawliteError)) throw error;
    const words =
      error.code === 'DIFF_TIMEOUT'
        ? `The comparison was cut short after ${context.diff.timeoutMs / 1000} s, its time limit: crawlite diff --url compares the whole texts.`
        : error.code === 'SEARCH_BUSY'
          ? 'Too many comparisons at once: try again in a moment.'
          : error.message;
    return { status: 503, body: html`${heading(asked)}<p class="error" id="diff-error">${words}</p>` };
  }
  if (diff.kind === 'not-archived')
    return { status: 404, body: html`${heading(asked)}<p class="error" id="diff-error">${asked} is not in the archive.</p>` };
  if (diff.kind === 'not-captured')
    return {
      status: 404,
      body: html`${heading(diff.url)}<p class="error" id="diff-error">${diff.url} was not captured in crawl ${diff.crawl}.</p>`,
    };
  if (diff.kind === 'same') {
    return {
      body: html`${heading(diff.url)}${bounds(context.diff, diff.sides)}<p id="diff-same">The text is the same in crawl ${from} and crawl ${to}${diff.bodiesDiffer ? ' (the bodies differ)' : ''}.</p>`,
    };
  }
  return {
    body: html`${heading(diff.url)}
${bounds(context.diff, diff.sides)}
${diff.patch === undefined ? html`<p class="error" id="diff-error">The two texts are too different to compare in ${context.diff.limits.compareMs / 1000} s.</p>` : diffLines(diff.patch)}`,
  };
}

function changeKindParam(params: URLSearchParams): ChangeKind | undefined {
  const text = params.get('change');
  if (text === null || text === '') return undefined;
  if (!(CHANGE_KINDS as readonly string[]).includes(text))
    throw new UiHttpError(400, `change must be one of ${CHANGE_KINDS.join(', ')}, got "${text.slice(0, 40)}"`);
  return text as ChangeKind;
}

interface ListedChange {
  url: string;
  change: ChangeKind;
  from_status: number | null;
  to_status: number | null;
  from_fetched_at: string | null;
  to_fetched_at: string | null;
}

/** The count of each kind and one page of the changes, each read in the query worker, within the SQL page's time limit. */
async function readChanges(sql: UiSql, from: number, to: number, kind: ChangeKind | undefined, after: string) {
  const counts = Object.fromEntries(CHANGE_KINDS.map((each) => [each, 0])) as Record<ChangeKind, number>;
  const countsQuery = changeCountsQuery(from, to);
  const pageQuery = changesPageQuery(from, to, { kinds: kind ? [kind] : LISTED, after, limit: PAGE_SIZE + 1 });
  const [countRows, pageRows] = await Promise.all([
    sql.firstRows(countsQuery.sql, { params: countsQuery.params, maxRows: CHANGE_KINDS.length }),
    sql.firstRows(pageQuery.sql, { params: pageQuery.params, maxRows: PAGE_SIZE + 1, cellChars: LISTED_CELL_CHARS }),
  ]);
  for (const [change, n] of countRows.rows as Array<[ChangeKind, number]>) counts[change] = n;
  // A URL past LISTED_CELL_CHARS (only an import can store one) is listed cut.
  const cell = (value: unknown) => (isCutCell(value) ? `${value.head}…` : value);
  const rows = pageRows.rows.map(
    (row) => Object.fromEntries(pageRows.columns.map((name, i) => [name, cell(row[i])])) as unknown as ListedChange,
  );
  // One row more than shown says whether there is a next page.
  const next = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1]!.url : undefined;
  return { counts, rows: rows.slice(0, PAGE_SIZE), next };
}

/** The counts of each kind, then the changes a page at a time, each linking to its text diff. */
async function changeList(context: UiContext, params: URLSearchParams, from: number, to: number): Promise<Html> {
  const kind = changeKindParam(params);
  const after = params.get('after') ?? '';
  if (!context.sql) throw new UiHttpError(501, 'Comparing crawls is not available here.');
  const listed = await readChanges(context.sql, from, to, kind, after);
  const { counts } = listed;
  const base = { from, to, ...(kind ? { change: kind } : {}) };
  return html`<table id="change-counts"><thead><tr><th>change</th><th class="num">URLs</th></tr></thead><tbody>
${CHANGE_KINDS.map((each) => html`<tr data-change="${each}"><td><a href="${changesHref({ from, to, change: each })}">${each}</a></td><td class="num">${formatCount(counts[each])}</td></tr>\n`)}
</tbody></table>
<h2>${kind ? html`URLs ${kind}` : html`URLs new, changed, redirected or gone`}${after ? html` after <span class="url">${after}</span>` : ''}</h2>
${kind || after ? html`<p class="muted"><a href="${changesHref({ from, to })}">all changes</a></p>` : ''}
<table id="changes"><thead><tr><th>URL</th><th>change</th><th class="num">status</th><th>crawl ${from}</th><th>crawl ${to}</th><th></th></tr></thead><tbody>
${listed.rows.map(
  (row) =>
    html`<tr data-change="${row.change}"><td class="url"><a href="${captureHref(row.url)}">${row.url}</a></td><td>${row.change}</td><td class="num">${row.from_status ?? '—'} → ${row.to_status ?? '—'}</td><td>${timeTag(row.from_fetched_at)}</td><td>${timeTag(row.to_fetched_at)}</td><td>${
      row.from_status !== null && row.to_status !== null
        ? html`<a class="text-diff" href="${changesHref({ url: row.url, from, to })}">text diff</a>`
        : ''
    }</td></tr>\n`,
)}</tbody></table>
${listed.rows.length === 0 ? html`<p class="muted" id="no-changes">No URLs${after ? ' after this one' : ''}.</p>` : ''}
<p class="pager">${listed.next !== undefined ? html`<a id="next" rel="next" href="${changesHref({ ...base, after: listed.next })}">next ${PAGE_SIZE} →</a>` : html`<span class="muted">end of the list</span>`}</p>`;
}

/** `/changes[?from=&to=]`: what changed between two crawls (by default the last two); `&url=`: how one page's text changed. */
export async function changesPage(context: UiContext, params: URLSearchParams): Promise<UiPage> {
  let crawls: number[];
  try {
    crawls = context.facts.crawlNumbers('this archive');
  } catch (error) {
    if (error instanceof CrawliteError) return page(html`<h1>Changes</h1><p class="error" id="changes-error">${error.message}</p>`, 501);
    throw error;
  }
  if (crawls.length < 2) {
    return page(
      html`<h1>Changes</h1><p id="one-crawl">This archive holds ${crawls.length ? 'one crawl' : 'no crawl'}: run <code>crawlite recrawl</code> on it, then see here what changed.</p>`,
    );
  }
  const asked = { from: crawlParam(params, 'from', crawls), to: crawlParam(params, 'to', crawls) };
  let from: number;
  let to: number;
  try {
    ({ from, to } = context.facts.resolveCrawls(
      {
        ...(asked.from !== undefined ? { from: asked.from } : {}),
        ...(asked.to !== undefined ? { to: asked.to } : {}),
      },
      'this archive',
    ));
  } catch (error) {
    if (error instanceof CrawliteError) throw new UiHttpError(400, error.message.replace(/--(from|to) /g, '$1 '));
    throw error;
  }
  const url = params.get('url');
  const heading = html`<h1>Changes</h1>${crawlForm(crawls, from, to, url)}`;
  if (url) {
    const diff = await pageDiff(context, url, from, to);
    return {
      ...page(
        html`${heading}<p class="muted"><a href="${changesHref({ from, to })}">all changes, crawl ${from} → crawl ${to}</a></p>${diff.body}`,
        diff.status,
      ),
      title: `Changes: ${url}`,
    };
  }
  try {
    return page(html`${heading}${await changeList(context, params, from, to)}`);
  } catch (error) {
    const refusal = context.sql && sqlRefusal(error, context.sql.timeoutMs);
    if (!refusal) throw error;
    return page(html`${heading}<p class="error" id="changes-error">${refusal.message}</p>`, refusal.status);
  }
}
