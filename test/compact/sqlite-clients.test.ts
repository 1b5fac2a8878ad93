import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { codeBlocks, docPages } from '../support/markdown.js';
import { shellCommands } from '../support/shell-words.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// docs/archive.md's "Compressed bodies" examples, as written, on a compact archive: the sqlite3 shell's
// sqlar_uncompress, crawlite query's, Python's zlib, and the Datasette plugin's function (run here by
// Python's sqlite3 as Datasette's prepare_connection hook would: Datasette itself is not installed).

const run = promisify(execFile);
const tool = (name: string) => [`/usr/bin/${name}`, `/usr/local/bin/${name}`].find((path) => existsSync(path));
const SQLITE3 = tool('sqlite3');
const PYTHON = tool('python3');
if (!SQLITE3)
  console.warn('compact sqlite-clients: skipping the sqlite3 example: the sqlite3 CLI is not installed (apt-get install sqlite3)');
if (!PYTHON) console.warn('compact sqlite-clients: skipping the Python examples: python3 is not installed');

const PAGE_TEXT = `<p>${'the same sentence, again and again. '.repeat(200)}</p>`;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
let server: TestServer;
let home: string;

/** The section's code blocks, with the docs' example file and URL made this test's. */
function section(language: string): string[] {
  const page = docPages().find((doc) => doc.path === 'docs/archive.md')!.text;
  const start = page.indexOf('## Compressed bodies');
  expect(start).toBeGreaterThan(0);
  const end = page.indexOf('\n## ', start + 1);
  return codeBlocks(page.slice(start, end < 0 ? undefined : end), language).map((block) =>
    block.replaceAll('site.sqlite', db).replaceAll('https://example.com/', home),
  );
}

beforeAll(async () => {
  server = await startServer(routes({ '/robots.txt': { status: 404 }, '/': html(PAGE_TEXT, 'Home') }));
  home = `${server.url.replace(/\/$/, '')}/`;
  const crawl = await execCli(['crawl', server.url, '--db', db, '-q', '--compact']);
  expect(crawl.code, crawl.stderr).toBe(0);
  const [row] = readArchive<{ length: number; size: number }>(db, 'SELECT length(body) AS length, size FROM pages WHERE url = ?', home);
  expect(row!.length).toBeLessThan(row!.size);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const shellLines = () => section('sh').flatMap((block) => block.split('\n').flatMap((line) => shellCommands(line)));

describe('reading a compressed body', () => {
  it.skipIf(!SQLITE3)('in the sqlite3 shell, with sqlar_uncompress', async () => {
    const line = shellLines().find((words) => words[0] === 'sqlite3')!;
    const { stdout } = await run(SQLITE3!, line.slice(1), { timeout: 20_000 });
    expect(stdout).toContain(PAGE_TEXT);
  });

  it('in crawlite query, with the same function', async () => {
    const line = shellLines().find((words) => words[0] === 'crawlite')!;
    const result = await execCli(line.slice(1));
    expect(result.code, result.stderr).toBe(0);
    const bodyRow = readArchive<{ length: number; size: number }>(
      db,
      'SELECT length(body) AS length, size FROM pages WHERE url = ?',
      home,
    )[0]!;
    expect(result.stdout).toContain(String(bodyRow.size));
    expect(result.stdout).toContain(String(bodyRow.length));
    const text = await execCli([
      'query',
      db,
      `select cast(sqlar_uncompress(body, size) as text) as t from pages where url = '${home}'`,
      '-f',
      'json',
    ]);
    expect(JSON.parse(text.stdout)).toEqual([{ t: expect.stringContaining(PAGE_TEXT) }]);
  });

  it.skipIf(!PYTHON)('in Python, with zlib', async () => {
    const script = section('python').find((block) => block.includes('def body_bytes'))!;
    const file = tmp.path('read.py');
    writeFileSync(file, script);
    const { stdout } = await run(PYTHON!, [file], { timeout: 20_000 });
    const [size] = readArchive<{ size: number }>(db, 'SELECT size FROM pages WHERE url = ?', home);
    expect(stdout.trim().split('\n')).toContain(`${home} ${size!.size}`);
  });

  it.skipIf(!PYTHON)("in Datasette's prepare_connection, with the plugin's function", async () => {
    const plugin = section('python').find((block) => block.includes('prepare_connection'))!;
    const dir = tmp.path('datasette-plugin');
    mkdirSync(join(dir, 'datasette'), { recursive: true });
    // Stands in for Datasette's hookimpl decorator: the plugin's code runs as written.
    writeFileSync(join(dir, 'datasette', '__init__.py'), 'def hookimpl(function):\n    return function\n');
    writeFileSync(join(dir, 'sqlar_plugin.py'), plugin);
    const sql = shellLines().find((words) => words[0] === 'sqlite3')![2]!;
    const driver = [
      'import sqlite3, sys',
      'import sqlar_plugin',
      `conn = sqlite3.connect(${JSON.stringify(db)})`,
      'sqlar_plugin.prepare_connection(conn)',
      `print(conn.execute(${JSON.stringify(sql)}).fetchone()[0])`,
    ].join('\n');
    const { stdout } = await run(PYTHON!, ['-c', driver], { cwd: dir, timeout: 20_000 });
    expect(stdout).toContain(PAGE_TEXT);
  });
});
