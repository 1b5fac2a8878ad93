import { CrawliteError } from '../../crawlite-error.js';
import type { ArchiveRelation } from '../../storage/reader/index.js';
import { browseRelationSql, isCutCell, MAX_SQL_CHARS } from '../../storage/query/index.js';
import { SHOWN_ROWS } from '../sql-mount.js';
import { html, type Html } from './html.js';
import { formatCount } from './format.js';
import { sqlRefusal } from './sql-refusal.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const MAX_AFTER_CHARS = 8 * 1024;

/** Queries from the manual's examples (docs/archive.md), to start from. */
export const EXAMPLE_QUERIES: ReadonlyArray<{ title: string; sql: string }> = [
  { title: 'what changed since the crawl before', sql: 'select change, count(*) as urls from changes group by change' },
  { title: 'pages by status', sql: 'select status, count(*) as pages from pages group by status order by status' },
  { title: 'most linked URLs', sql: 'select to_url, count(*) as links from links group by to_url order by links desc limit 50' },
  { title: 'largest bodies', sql: 'select url, size, content_type from pages order by size desc limit 50' },
  {
    title: 'broken links and where they are',
    sql: 'select l.from_url, p.url, p.status from pages p join links l on l.to_url = p.url where p.status >= 400',
  },
  { title: 'what was left out, and why', sql: "select url, error from urls where state = 'skipped'" },
  { title: 'failures by kind', sql: "select substr(error, 1, 60) as error, count(*) as urls from urls where state = 'failed' group by 1" },
  { title: 'pages by server', sql: "select json_extract(headers, '$.server') as server, count(*) as pages from pages group by 1" },
  { title: 'redirects', sql: "select from_url, to_url from links where kind = 'redirect'" },
];

const downloadHref = (format: 'csv' | 'json', sql: string) => `/sql.${format}?${new URLSearchParams({ sql }).toString()}`;
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A cell as the query's process sent it: whole, or cut past SHOWN_CELL_CHARS with its size (the downloads have it all). */
function cell(value: unknown): Html {
  if (value === null || value === undefined) return html`<td class="null">NULL</td>`;
  if (isCutCell(value) && value.cut === 'blob') return html`<td class="blob">&lt;${formatCount(value.bytes)} bytes&gt;</td>`;
  if (isCutCell(value))
    return html`<td>${value.head}… <span class="cut">(cut: ${formatCount(value.bytes)} bytes in all; the downloads have it whole)</span></td>`;
  if (typeof value === 'number' || typeof value === 'bigint') return html`<td class="num">${String(value)}</td>`;
  return html`<td>${String(value)}</td>`;
}

function resultsTable(columns: readonly string[], rows: readonly unknown[][]): Html {
  return html`<div class="results-wrap"><table id="results"><thead><tr>${columns.map((name) => html`<th>${name}</th>`)}</tr></thead><tbody>
${rows.map((row) => html`<tr>${row.map(cell)}</tr>\n`)}</tbody></table></div>`;
}

const examples = html`<section id="examples"><h2>Examples</h2><ul>${EXAMPLE_QUERIES.map(
  (example) => html`<li><a href="/sql?${new URLSearchParams({ sql: example.sql }).toString()}">${example.title}</a></li>`,
)}</ul></section>`;

function relationsList(relations: readonly ArchiveRelation[]): Html {
  const group = (type: 'view' | 'table', title: string) =>
    html`<h3>${title}</h3><ul>${relations
      .filter((relation) => relation.type === type)
      .map(
        (
          relation,
        ) => html`<li data-relation="${relation.name}"><a href="/sql?${new URLSearchParams({ view: relation.name }).toString()}">${relation.name}</a>
<button type="button" class="query" data-fill="${`select ${relation.columns.map(quotedIfNeeded).join(', ')}\nfrom ${quotedIfNeeded(relation.name)}\nlimit 100`}" title="put a query of ${relation.name} in the box">query</button>
<div class="columns">${relation.columns.map((column) => html`<button type="button" data-insert="${quotedIfNeeded(column)}">${column}</button>`)}</div></li>\n`,
      )}</ul>`;
  return html`<aside>${examples}<section id="relations"><h2>Views and tables</h2>
<p class="muted">Views are the stable contract (the manual's docs/archive.md lists them); the tables under them may change. A name browses it; a column types itself into the box.</p>
${group('view', 'Views')}
<details id="tables"><summary>Tables (${relations.filter((relation) => relation.type === 'table').length})</summary>${group('table', 'Tables')}</details></section></aside>`;
}

const quotedIfNeeded = (name: string) => (/^[a-z_][a-z0-9_]*$/i.test(name) ? name : quoted(name));

function form(sql: string): Html {
  return html`<form id="sql-form" action="/sql" method="get">
<textarea id="sql-box" name="sql" maxlength="${MAX_SQL_CHARS}" spellcheck="false" aria-label="SQL query" placeholder="select url, status from pages where status >= 400">${sql}</textarea>
<div class="actions"><button type="submit" id="run">Run</button><span class="muted">one read-only statement; Ctrl+Enter runs it</span></div>
</form>`;
}

function pageOf(context: UiContext, main: Html, sql: string, status?: number): UiPage {
  const relations = context.facts.relations();
  return {
    ...(status !== undefined ? { status } : {}),
    title: 'SQL',
    body: html`<h1>SQL</h1><div class="sql-layout"><div>${form(sql)}${main}</div>${relationsList(relations)}</div>`,
    scripts: ['/assets/sql-box.js'],
    styles: ['/assets/sql.css'],
  };
}

function pageSize(params: URLSearchParams): number {
  const text = params.get('limit') ?? String(PAGE_SIZE);
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > MAX_PAGE_SIZE)
    throw new UiHttpError(400, `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got "${text.slice(0, 40)}"`);
  return Number(text);
}

/** `after`: the key of the last row shown, as a JSON array of strings and integers. */
function afterKey(params: URLSearchParams, relation: ArchiveRelation): Array<string | number> | undefined {
  const text = params.get('after');
  if (text === null || text === '') return undefined;
  const bad = () =>
    new UiHttpError(400, `after must be the key of a row of ${relation.name} (${relation.key.join(', ')}), as the next link gives it`);
  if (text.length > MAX_AFTER_CHARS || relation.key.length === 0) throw bad();
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw bad();
  }
  const valid =
    Array.isArray(key) &&
    key.length === relation.key.length &&
    key.every((part) => (typeof part === 'string' && !part.includes('\0')) || Number.isSafeInteger(part));
  if (!valid) throw bad();
  return key as Array<string | number>;
}

/** `/sql?view=NAME[&after=KEY][&limit=N]`: a view or table in key order, a page at a time after the last row shown. */
async function browse(context: UiContext, params: URLSearchParams, name: string): Promise<UiPage> {
  const relation = context.facts.relations().find((candidate) => candidate.name === name);
  if (!relation) throw new UiHttpError(404, `no view or table named ${name.slice(0, 100)} in this archive`);
  const limit = pageSize(params);
  const after = afterKey(params, relation);
  const { sql, params: bound } = browseRelationSql(relation, after, limit + 1);
  // The key columns come as stored (the others are cut by the SQL), up to the longest key `after` may carry.
  const shown = await context.sql!.firstRows(sql, { params: bound, maxRows: limit + 1, cellChars: MAX_AFTER_CHARS });
  const keys = relation.key.length;
  // More rows than the page shows, or a page cut short at SHOWN_BYTES: the next page starts after the last row shown.
  const rows = shown.rows.slice(0, limit);
  // A key cut (past MAX_AFTER_CHARS) cannot say where the next page starts.
  const more = keys > 0 && rows.length > 0 && (shown.rows.length > limit || shown.cut) && !rows.at(-1)!.slice(0, keys).some(isCutCell);
  const next = new URLSearchParams({ view: name, ...(params.has('limit') ? { limit: String(limit) } : {}) });
  if (more) next.set('after', JSON.stringify(rows.at(-1)!.slice(0, keys)));
  const everything = `select * from ${quotedIfNeeded(relation.name)}${keys ? ` order by ${relation.key.map(quotedIfNeeded).join(', ')}` : ''}`;
  const main = html`<h2 id="browsing">${relation.type} ${relation.name}</h2>
<p class="muted">${keys ? html`In order of ${relation.key.join(', ')}${after ? html` · <a href="/sql?${new URLSearchParams({ view: name }).toString()}">first page</a>` : ''}` : html`Its first ${limit} rows (${relation.name} has no key to page by: query it, or download it all)`} · download all as <a class="download" href="${downloadHref('csv', everything)}">CSV</a> · <a class="download" href="${downloadHref('json', everything)}">JSON</a></p>
${resultsTable(
  relation.columns,
  rows.map((row) => row.slice(keys)),
)}
${rows.length === 0 ? html`<p class="muted">No rows${after ? ' after this one' : ''}.</p>` : ''}
<p class="pager">${more ? html`<a id="next" rel="next" href="/sql?${next.toString()}">next ${limit} →</a>` : keys ? html`<span class="muted">end of ${relation.name}</span>` : ''}</p>`;
  return pageOf(context, main, everything);
}

/** `/sql?sql=`: one statement's first rows; `/sql?view=`: a view or table a page at a time; `/sql`: the box, the schema and examples. */
export async function sqlPage(context: UiContext, params: URLSearchParams): Promise<UiPage> {
  const sql = params.get('sql') ?? '';
  const view = params.get('view');
  if (!context.sql) return pageOf(context, html`<p class="error" id="sql-error">SQL queries are not available here.</p>`, sql, 501);
  try {
    if (view) return await browse(context, params, view);
    if (!sql.trim()) return pageOf(context, html``, '');
    const shown = await context.sql.firstRows(sql, { maxRows: SHOWN_ROWS });
    const main = html`<p class="muted" id="row-count">${
      shown.cut
        ? html`<strong id="cut">The first ${formatCount(shown.rows.length)} rows</strong>, cut there: download them all`
        : html`${formatCount(shown.rows.length)} row${shown.rows.length === 1 ? '' : 's'} · download`
    } as <a class="download" id="csv" href="${downloadHref('csv', sql)}">CSV</a> · <a class="download" id="json" href="${downloadHref('json', sql)}">JSON</a></p>
${resultsTable(shown.columns, shown.rows)}`;
    return pageOf(context, main, sql);
  } catch (error) {
    const refusal = sqlRefusal(error, context.sql.timeoutMs);
    if (refusal) return pageOf(context, html`<p class="error" id="sql-error">${refusal.message}</p>`, view ? '' : sql, refusal.status);
    if (error instanceof CrawliteError) throw new UiHttpError(400, error.message);
    throw error;
  }
}
