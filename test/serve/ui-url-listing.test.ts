import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/storage/archive/migrate.js';
import { listUrls, TITLE_CHARS, urlListingQuery, type UrlListingFilter } from '../../src/storage/reader/url-listing.js';
import { tempDir } from '../support/archive.js';

// The URL list's query on an archive built row by row: keyset pages along the url
// index, never a sort, and a scan limit that shortens pages without losing rows.

const tmp = tempDir();
let db: Database.Database;
const N = 600;

interface Row {
  url: string;
  state: string;
  kind: string;
  status: number | null;
  /** The media type the listing filters by; null without a response. */
  type: string | null;
  title: string | null;
}
const rows: Row[] = [];

beforeAll(() => {
  const path = tmp.path('listing.sqlite');
  const writer = new Database(path);
  migrate(writer, loadMigrations());
  writer.exec(`INSERT INTO run (id, started_at, options) VALUES (1, '2026-01-01T00:00:00.000Z', '{}');
    INSERT INTO body (id, hash, size, data) VALUES (1, x'00', 2, x'6869');`);
  const url = writer.prepare('INSERT INTO url (id, url, origin, state, depth, redirect_hops, kind) VALUES (?, ?, ?, ?, 0, 0, ?)');
  const response = writer.prepare(
    "INSERT INTO response (url_id, run_id, status, content_type, title, headers, body_id, fetched_at, elapsed_ms, links_found, links_new) VALUES (?, 1, ?, ?, ?, '{}', 1, '2026-01-01T00:00:01.000Z', 1, 0, 0)",
  );
  // Spellings of one type (parameters, case, space) and a rare type, a type without parameters, none at all.
  const contentTypes: Array<[string | null, string]> = [
    ['text/html; charset=utf-8', 'text/html'],
    ['Text/HTML', 'text/html'],
    [' text/html ;charset=x', 'text/html'],
    ['image/png', 'image/png'],
    [null, '(none)'],
    ['text/html-sandboxed', 'text/html-sandboxed'],
  ];
  writer.transaction(() => {
    for (let i = 1; i <= N; i += 1) {
      const scheme = i % 3 === 0 ? 'http' : 'https';
      const origin = `${scheme}://h${i % 4}.example`;
      const row: Row = {
        url: `${origin}/p/${(i * 37) % N}/${i}`,
        state: i % 5 === 0 ? 'skipped' : 'done',
        kind: i % 7 === 0 ? 'requisite' : 'page',
        status: i % 5 === 0 ? null : i % 97 === 0 ? 503 : i % 11 === 0 ? 404 : 200,
        type: null,
        title: null,
      };
      const [contentType, type] = i % 89 === 0 ? ['application/pdf', 'application/pdf'] : contentTypes[i % contentTypes.length]!;
      if (row.status !== null) row.type = type;
      // Every fourth response has no title; one has a title far longer than a list shows.
      if (row.status !== null && i % 4 !== 0) row.title = i === 1 ? `${'𝕏'.repeat(TITLE_CHARS)}tail` : `<b>title ${i}</b>`;
      rows.push(row);
      url.run(i, row.url, origin, row.state, row.kind);
      if (row.status !== null) response.run(i, row.status, contentType, row.title);
    }
  })();
  writer.close();
  db = new Database(path, { readonly: true });
  rows.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
});

afterAll(() => {
  db?.close();
  tmp.cleanup();
});

/** Every URL the listing gives, following `next` from the first page, with the requests it took. */
function walk(filter: UrlListingFilter, limit: number, scan?: number): { urls: string[]; requests: number } {
  const urls: string[] = [];
  let after = '';
  for (let requests = 1; requests <= 10_000; requests += 1) {
    const page = listUrls(db, filter, { after, limit, ...(scan ? { scan } : {}) });
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    urls.push(...page.rows.map((row) => row.url));
    if (page.next === undefined) return { urls, requests };
    expect(page.next > after).toBe(true);
    after = page.next;
  }
  throw new Error('the listing never ended');
}

const statusClass = (status: number | null) => (status === null ? 'none' : `${String(status)[0]}xx`);

describe('the URL listing', () => {
  it.each<[string, UrlListingFilter, (row: Row) => boolean]>([
    ['no filter', {}, () => true],
    ['status 4xx', { statusClass: '4xx' }, (row) => statusClass(row.status) === '4xx'],
    ['status 5xx (rare)', { statusClass: '5xx' }, (row) => statusClass(row.status) === '5xx'],
    ['no response', { statusClass: 'none' }, (row) => row.status === null],
    ['state and kind', { state: 'done', kind: 'requisite' }, (row) => row.state === 'done' && row.kind === 'requisite'],
    ['an origin', { host: 'https://h1.example' }, (row) => row.url.startsWith('https://h1.example/')],
    [
      'a bare host, both schemes',
      { host: 'h2.example', statusClass: '2xx' },
      (row) => /^https?:\/\/h2\.example\//.test(row.url) && row.status === 200,
    ],
    ['text', { text: '/7' }, (row) => row.url.includes('/7')],
    ['a content type, any spelling of it', { contentType: 'text/html' }, (row) => row.type === 'text/html'],
    ['a content type given in capitals', { contentType: 'Image/PNG' }, (row) => row.type === 'image/png'],
    ['a rare content type', { contentType: 'application/pdf' }, (row) => row.type === 'application/pdf'],
    ['responses without a content type', { contentType: '(none)' }, (row) => row.type === '(none)'],
    [
      'a content type with status and host',
      { contentType: 'text/html', statusClass: '2xx', host: 'h1.example' },
      (row) => row.type === 'text/html' && row.status === 200 && /^https?:\/\/h1\.example\//.test(row.url),
    ],
  ])('gives every match once, in URL order, page after page: %s', (_name, filter, matches) => {
    const expected = rows.filter(matches).map((row) => row.url);
    expect(expected.length).toBeGreaterThan(0);
    expect(walk(filter, 25).urls).toEqual(expected);
    // A scan limit far below the table's size: shorter pages, the same URLs.
    const capped = walk(filter, 25, 40);
    expect(capped.urls).toEqual(expected);
    // Without a host range, every request reads at most 40 of the 600 URLs.
    if (!filter.host) expect(capped.requests).toBeGreaterThanOrEqual(N / 40);
  });

  it("gives each URL's title (its first TITLE_CHARS characters) and content type as stored", () => {
    const listed = listUrls(db, {}, { limit: N }).rows;
    expect(listed.map((row) => row.url)).toEqual(rows.map((row) => row.url));
    const cut = (title: string | null) => (title === null ? null : Array.from(title).slice(0, TITLE_CHARS).join(''));
    expect(listed.map((row) => row.title)).toEqual(rows.map((row) => cut(row.title)));
    expect(listed.find((row) => row.title?.startsWith('𝕏'))?.title).toBe('𝕏'.repeat(TITLE_CHARS));
    expect(listed.filter((row) => row.contentType === 'Text/HTML').length).toBeGreaterThan(0);
  });

  it('stops a rare filter at the scan limit and says where to go on from', () => {
    const page = listUrls(db, { statusClass: '5xx' }, { limit: 25, scan: 40 });
    expect(page.partial).toBe(true);
    expect(page.next).toBe(rows[39]!.url);
    expect(page.rows.map((row) => row.url)).toEqual(
      rows
        .slice(0, 40)
        .filter((row) => row.status === 503)
        .map((row) => row.url),
    );
  });

  it.each<[string, UrlListingFilter]>([
    ['no filter', {}],
    ['status', { statusClass: '4xx' }],
    ['no response', { statusClass: 'none' }],
    ['state, kind, text', { state: 'failed', kind: 'page', text: 'x' }],
    ['content type', { contentType: 'text/html' }],
    ['content type and status', { contentType: 'image/png', statusClass: '2xx' }],
    ['origin', { host: 'https://h1.example' }],
    ['origin and content type', { host: 'https://h1.example', contentType: 'text/html' }],
  ])('reads along the url index without sorting: %s', (_name, filter) => {
    const range = filter.host
      ? { after: '', from: `${filter.host}/`, to: `${filter.host}/\u{10FFFF}` }
      : { after: 'https://h1.example/p/3' };
    const { sql, params } = urlListingQuery(filter, range, 101);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(params)
      .map((row) => (row as { detail: string }).detail);
    expect(plan.join('\n')).toMatch(/SEARCH url USING (COVERING )?INDEX sqlite_autoindex_url_1 \(url[><]/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    expect(plan.join('\n')).not.toMatch(/SCAN (url|r|response|b|body)\b/);
    // Joins stay left joins, which SQLite never reorders: it cannot start from response and sort.
    for (const line of plan.filter((detail) => /^SEARCH (r|b) /.test(detail))) expect(line).toMatch(/LEFT-JOIN$/);
  });
});
