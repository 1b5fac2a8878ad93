import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// `query` and `stats` run the built CLI (dist/bundle/crawlite.js) as a real process: build with `npm run build` first.

/** A PNG signature followed by every byte value: binary, with NULs and bytes that are not UTF-8. */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256)),
]);

/** Reads through a read-write connection that is closed at once, so it leaves no -wal or -shm behind. */
function read<T = Record<string, unknown>>(path: string, sql: string): T[] {
  const db = new Database(path, { fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

/** A cell as the JSON formats should show it: BLOBs as base64, everything else as is. */
const jsonCell = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value);
const jsonRow = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, jsonCell(value)]));
/** A cell as CSV should hold it once unquoted: NULL empty, BLOBs base64. */
const csvCell = (value: unknown) => (value === null ? '' : Buffer.isBuffer(value) ? value.toString('base64') : String(value));

/** RFC 4180: quoted fields may hold commas, CRLF and doubled quotes. Returns records of fields. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"' && field === '') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i += 1;
          break;
        } else {
          field += text[i];
          i += 1;
        }
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`text after a closing quote at ${i}`);
    } else if (char === ',') {
      record.push(field);
      field = '';
      i += 1;
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      field += char;
      i += 1;
    }
  }
  if (field !== '' || record.length) throw new Error('last record does not end with CRLF');
  return records;
}

let server: TestServer;
let tmp: ReturnType<typeof tempDir>;
let db: string;

const PAGES_SQL = 'select * from pages order by url';

beforeAll(async () => {
  tmp = tempDir();
  server = await startServer(
    routes({
      '/': html(
        [
          '<a href="/about">About "us", and more</a>',
          '<a href="/logo.png">logo</a>',
          '<a href="/missing">gone</a>',
          '<a href="/a,b">comma</a>',
          // Another port on 127.0.0.1 is another site: recorded as skipped, never fetched.
          '<a href="http://127.0.0.1:1/elsewhere">elsewhere</a>',
        ].join('\n'),
        'home',
      ),
      '/about': html('<p>line one\nline "two", with a comma</p><a href="/">home</a>', 'about'),
      '/a,b': html('<p>a page whose URL has a comma</p>', 'comma'),
      '/logo.png': { headers: { 'content-type': 'image/png' }, body: PNG },
    }),
  );
  db = tmp.path('site.sqlite');
  const crawl = await runCli(['crawl', server.url, '--db', db, '-q', '--ignore-robots']);
  expect(crawl.code, crawl.stderr).toBe(0);
});

afterAll(async () => {
  await server?.close();
  tmp?.cleanup();
});

describe('the archive under test', () => {
  it('holds an HTML page, a binary page, a 404 and a skipped URL', () => {
    const pages = read<{ url: string; status: number; content_type: string | null; body: Buffer }>(db, PAGES_SQL);
    expect(pages.map((page) => [page.url.slice(server.url.length - 1), page.status])).toEqual([
      ['/', 200],
      ['/a,b', 200],
      ['/about', 200],
      ['/logo.png', 200],
      ['/missing', 404],
    ]);
    const png = pages.find((page) => page.url.endsWith('/logo.png'))!;
    expect(png.content_type).toBe('image/png');
    expect(Buffer.compare(png.body, PNG)).toBe(0);
    expect(pages.find((page) => page.url.endsWith('/missing'))!.content_type).toBeNull();
    expect(read(db, "select url, state from urls where state = 'skipped'")).toEqual([
      { url: 'http://127.0.0.1:1/elsewhere', state: 'skipped' },
    ]);
    expect(server.hitCount('/elsewhere')).toBe(0);
  });
});

describe.concurrent('query output formats', () => {
  it('--format json prints one array of row objects equal to the pages view, BLOBs as base64', async ({ expect }) => {
    const expected = read(db, PAGES_SQL).map(jsonRow);
    const result = await execCli(['query', db, PAGES_SQL, '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed).toEqual(expected);
    // Same columns in the same order as the view.
    expect(Object.keys(parsed[0]!)).toEqual(Object.keys(read(db, PAGES_SQL)[0]!));
    const png = parsed.find((row) => String(row.url).endsWith('/logo.png'))!;
    expect(Buffer.from(String(png.body), 'base64').equals(PNG)).toBe(true);
  });

  it('-f ndjson prints one object per line', async ({ expect }) => {
    const expected = read(db, PAGES_SQL).map(jsonRow);
    const result = await execCli(['query', db, PAGES_SQL, '-f', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    const lines = result.stdout.slice(0, -1).split('\n');
    expect(lines).toHaveLength(expected.length);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(expected);
  });

  it('-f csv prints a header and rows, quoted where needed, BLOBs as base64', async ({ expect }) => {
    const rows = read(db, PAGES_SQL);
    const result = await execCli(['query', db, PAGES_SQL, '-f', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    const records = parseCsv(result.stdout);
    expect(records[0]).toEqual(Object.keys(rows[0]!));
    expect(records.slice(1)).toEqual(rows.map((row) => Object.values(row).map(csvCell)));
    // A comma in a URL and quotes in the headers' JSON are quoted and doubled.
    expect(result.stdout).toContain(`"${server.url}a,b"`);
    expect(result.stdout).toMatch(/,"\{""[a-z-]+"":""/);
  });

  it('-f csv quotes commas, quotes and line breaks in computed cells', async ({ expect }) => {
    const sql = `select 'plain' as a, 'with, comma' as b, 'say "hi"' as c, 'two' || char(10) || 'lines' as d, null as e, x'00ff10' as f, 42 as g`;
    const result = await execCli(['query', db, sql, '-f', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('a,b,c,d,e,f,g\r\nplain,"with, comma","say ""hi""","two\nlines",,AP8Q,42\r\n');
    expect(parseCsv(result.stdout)).toEqual([
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      ['plain', 'with, comma', 'say "hi"', 'two\nlines', '', Buffer.from([0, 0xff, 0x10]).toString('base64'), '42'],
    ]);
  });

  it('table (the default) shows <N bytes> for BLOBs with the right N', async ({ expect }) => {
    const rows = read<{ url: string; body: Buffer; size: number }>(db, 'select url, body, size from pages order by url');
    const result = await execCli(['query', db, 'select url, body, size from pages order by url']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^url\s+body\s+size$/);
    expect(lines[1]).toMatch(/^-+ {2}-+ {2}-+$/);
    expect(lines.at(-1)).toBe(`(${rows.length} rows)`);
    const body = lines.slice(2, -1);
    expect(body).toHaveLength(rows.length);
    rows.forEach((row, i) => {
      expect(body[i]!.split(/\s{2,}/)).toEqual([row.url, `<${row.body.byteLength} bytes>`, String(row.size)]);
    });
    expect(result.stdout).toContain(`<${PNG.length} bytes>`);
    expect(result.stdout).toContain('<9 bytes>'); // "not found", the 404's body
  });

  it('table shows NULL for NULL cells', async ({ expect }) => {
    const result = await execCli(['query', db, 'select url, content_type from pages where status = 404']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${server.url}missing\\s+NULL$`, 'm'));
    expect(result.stdout.trimEnd().endsWith('(1 row)')).toBe(true);
  });

  it('runs PRAGMA integrity_check and prints ok', async ({ expect }) => {
    const table = await execCli(['query', db, 'PRAGMA integrity_check']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[2]).toBe('ok');
    const json = await execCli(['query', db, 'PRAGMA integrity_check', '-f', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ integrity_check: 'ok' }]);
  });
});

describe.concurrent('statements query refuses', () => {
  /** `vacuumTarget` is a path that must not come to exist; `db` (an existing file) is what ATTACH would reach. */
  const refused: [string, (paths: { vacuumTarget: string; db: string }) => string, RegExp][] = [
    ['a DELETE', () => 'delete from url', /only reads/],
    ['an UPDATE', () => "update url set state = 'queued'", /only reads/],
    ['an INSERT', () => "insert into meta (key, value) values ('x', 'y')", /only reads/],
    ['a CREATE TABLE', () => 'create table t (x)', /only reads/],
    ['a DELETE behind a WITH', () => 'with doomed as (select id from url) delete from url where id in doomed', /only reads/],
    ['a PRAGMA that writes', () => 'PRAGMA user_version = 7', /only reads/],
    ['ATTACH', ({ db }) => `ATTACH DATABASE '${db}' AS other`, /refuses ATTACH/],
    ['ATTACH after a comment', () => "/* sneaky */ attach ':memory:' as m", /refuses ATTACH/],
    ['ATTACH after an empty statement', ({ db }) => `; ATTACH DATABASE '${db}' AS other`, /refuses ATTACH/],
    ['VACUUM', () => 'VACUUM', /refuses VACUUM/],
    ['VACUUM INTO', ({ vacuumTarget }) => `VACUUM INTO '${vacuumTarget}'`, /refuses VACUUM/],
    ['two statements', () => 'select count(*) from pages; delete from url', /exactly one SQL statement/],
  ];

  for (const [what, sqlFor, phrase] of refused) {
    it(`refuses ${what}: exit 1, one line, the file byte-identical`, async ({ expect }) => {
      const vacuumTarget = tmp.path(`vacuum-${Math.random().toString(36).slice(2)}.sqlite`);
      const sql = sqlFor({ vacuumTarget, db });
      const before = fileSha256(db);
      const countsSql =
        'select (select count(*) from url) as urls, (select count(*) from pages) as pages, (select count(*) from meta) as meta';
      const counts = read(db, countsSql);
      const result = await execCli(['query', db, sql]);
      const shown = `sql: ${sql}\nexit ${result.code}\nstderr: ${result.stderr}\nstdout: ${result.stdout}`;
      expect(result.code, shown).toBe(1);
      expect(result.stdout, shown).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, shown).toHaveLength(1);
      expect(lines[0], shown).toMatch(/^crawlite: /);
      expect(lines[0], shown).toMatch(phrase);
      expect(fileSha256(db)).toBe(before);
      expect(existsSync(vacuumTarget)).toBe(false);
      expect(read(db, countsSql)).toEqual(counts);
    });
  }
});

describe.concurrent('stats', () => {
  const expectedTotals = () => {
    const byState = Object.fromEntries(
      read<{ state: string; n: number }>(db, 'select state, count(*) as n from urls group by state').map((row) => [row.state, row.n]),
    );
    const [{ pages }] = read<{ pages: number }>(db, 'select count(*) as pages from pages');
    const byStatus = read<{ status: number; count: number }>(
      db,
      'select status, count(*) as count from pages group by status order by status',
    );
    const [{ total }] = read<{ total: number }>(db, 'select count(*) as total from urls');
    const n = (state: string) => (byState[state] as number | undefined) ?? 0;
    return { done: n('done'), failed: n('failed'), skipped: n('skipped'), queued: n('queued') + n('fetching'), total, pages, byStatus };
  };

  it('prints totals that match the views', async ({ expect }) => {
    const want = expectedTotals();
    expect(want.pages).toBe(5);
    expect(want.skipped).toBe(1);
    const result = await execCli(['stats', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Archive   ${db}`);
    expect(result.stdout).toContain(
      `URLs      ${want.total} seen: ${want.done} done, ${want.failed} failed, ${want.skipped} skipped, ${want.queued} queued`,
    );
    const statuses = want.byStatus.map((row) => `${row.status}: ${row.count}`).join(', ');
    expect(result.stdout).toContain(`Pages     ${want.pages} stored; by status ${statuses}`);
  });

  it('--json prints the same totals for scripts', async ({ expect }) => {
    const want = expectedTotals();
    const result = await execCli(['stats', db, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      archive: string;
      urls: Record<string, number>;
      pages: number;
      byStatus: { status: number; count: number }[];
      runs: number;
      otherBytes: number;
    };
    expect(report.archive).toBe(db);
    expect(report.urls.done).toBe(want.done);
    expect(report.urls.failed).toBe(want.failed);
    expect(report.urls.skipped).toBe(want.skipped);
    expect(report.urls.queued + report.urls.fetching).toBe(want.queued);
    expect(report.urls.total).toBe(want.total);
    expect(report.pages).toBe(want.pages);
    expect(report.byStatus).toEqual(want.byStatus);
    expect(report.runs).toBe(1);
    // Non-HTML bytes: the PNG and the 404's "not found" (served without a content type).
    expect(report.otherBytes).toBe(PNG.length + 'not found'.length);
  });
});
