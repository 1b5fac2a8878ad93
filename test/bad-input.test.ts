import { createHash, randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli, type CliRun } from './support/cli.js';
import { html, routes, startServer, type Route, type TestServer } from './support/test-server.js';

// Every case runs the built CLI (dist/bundle/crawlite.js) as a real process: build with `npm run build` first.

const PAGES = 200;

const SIDECARS = ['-wal', '-shm', '-journal', '-lock'];
const sidecarsOf = (path: string) => SIDECARS.filter((suffix) => existsSync(`${path}${suffix}`));

/** A site of PAGES pages, each with its own ~2 KiB body, all linked from the root. */
function site(): Record<string, Route> {
  const table: Record<string, Route> = {};
  const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">page ${i}</a>`).join('\n');
  table['/'] = html(links, 'root');
  for (let i = 0; i < PAGES; i += 1) {
    const text = `<p>page ${i}: ${createHash('sha256').update(`page ${i}`).digest('hex').repeat(32)}</p>`;
    table[`/p/${i}`] = html(text, `page ${i}`);
  }
  return table;
}

interface Refusal {
  /** A phrase the one line must contain, to be of help. */
  phrase: RegExp;
  /** A file that existed before and must be byte-identical afterwards, with no new sidecar. */
  file?: string;
  /** Paths that did not exist before and must still not exist. */
  absent?: string[];
}

interface Snapshot {
  hash: string;
  sidecars: string[];
}

/** Runs the real CLI and checks it failed the way a user should see it: one line, exit 1, nothing touched. */
async function expectRefused(expect: ExpectStatic, argv: string[], { phrase, file, absent = [] }: Refusal): Promise<CliRun> {
  let before: Snapshot | undefined;
  if (file) {
    before = { hash: fileSha256(file), sidecars: sidecarsOf(file) };
  }
  for (const path of absent) expect(existsSync(path), `${path} exists before the run`).toBe(false);

  const result = await execCli(argv);
  const shown = `argv: ${JSON.stringify(argv)}\nstderr: ${result.stderr}\nstdout: ${result.stdout}`;

  expect(result.code, shown).toBe(1);
  expect(result.stderr.endsWith('\n'), shown).toBe(true);
  const lines = result.stderr.slice(0, -1).split('\n');
  expect(lines, shown).toHaveLength(1);
  expect(lines[0]!.startsWith('crawlite: '), shown).toBe(true);
  expect(lines[0], shown).toMatch(phrase);
  expect(result.stderr, shown).not.toMatch(/^ {4}at /m);
  expect(result.stdout, shown).toBe('');

  for (const path of absent) expect(existsSync(path), `${path} was created by ${JSON.stringify(argv)}`).toBe(false);
  if (file && before) {
    expect(fileSha256(file), `${file} changed`).toBe(before.hash);
    expect(sidecarsOf(file), `sidecar files of ${file} left behind by ${JSON.stringify(argv)}`).toEqual(before.sidecars);
  }
  return result;
}

/**
 * Reads one value through a read-write connection, closed at once. (A read-only connection
 * to a WAL file would itself leave -wal and -shm behind; the last read-write one removes them.)
 */
function scalar(path: string, sql: string): unknown {
  const db = new Database(path, { fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get();
  } finally {
    db.close();
  }
}

let server: TestServer;
let tmp: ReturnType<typeof tempDir>;
/** A real, closed archive of the 200-page site; never handed to the CLI itself, only copied. */
let master: string;
let copies = 0;

/** A fresh copy of the master archive, so each case starts from a file no earlier case opened. */
function archiveCopy(name: string): string {
  copies += 1;
  const path = tmp.path(`${copies}-${name}.sqlite`);
  copyFileSync(master, path);
  return path;
}

beforeAll(async () => {
  tmp = tempDir();
  server = await startServer(routes(site()));
  master = tmp.path('master.sqlite');
  const crawl = await runCli(['crawl', server.url, '--db', master, '-q', '--ignore-robots']);
  expect(crawl.code, crawl.stderr).toBe(0);
  expect(scalar(master, 'SELECT count(*) FROM pages')).toBe(PAGES + 1);
  // The crawl's last connection closed, so the WAL was checkpointed and removed.
  expect(sidecarsOf(master)).toEqual([]);
});

afterAll(async () => {
  await server?.close();
  tmp?.cleanup();
});

describe.concurrent('bad command lines', () => {
  it('refuses an invalid root URL', async ({ expect }) => {
    const db = tmp.path('invalid-root.sqlite');
    await expectRefused(expect, ['crawl', 'http://', '--db', db], { phrase: /root "http:\/\/" is not a valid URL/, absent: [db] });
  });

  it('refuses a root that is not http(s)', async ({ expect }) => {
    const db = tmp.path('ftp-root.sqlite');
    await expectRefused(expect, ['crawl', 'ftp://example.com', '--db', db], { phrase: /not an http\(s\) URL/, absent: [db] });
  });

  it('refuses an archive path in a missing directory and does not create the directory', async ({ expect }) => {
    const dir = tmp.path('no-such-dir');
    const db = `${dir}/site.sqlite`;
    await expectRefused(expect, ['crawl', server.url, '--db', db], { phrase: /does not exist/, absent: [dir, db] });
  });

  it('refuses an archive path that is a directory', async ({ expect }) => {
    const dir = tmp.path('a-directory');
    mkdirSync(dir);
    await expectRefused(expect, ['crawl', server.url, '--db', dir], { phrase: /is a directory/ });
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(sidecarsOf(dir)).toEqual([]);
  });

  it('refuses to resume a missing file and does not create it', async ({ expect }) => {
    const db = tmp.path('missing.sqlite');
    await expectRefused(expect, ['resume', db], { phrase: /no such archive/, absent: [db] });
  });

  it('refuses an unknown flag', async ({ expect }) => {
    const db = tmp.path('unknown-flag.sqlite');
    await expectRefused(expect, ['crawl', server.url, '--db', db, '--frobnicate'], {
      phrase: /unknown argument.*frobnicate/i,
      absent: [db],
    });
  });

  it('refuses an unknown command', async ({ expect }) => {
    await expectRefused(expect, ['frobnicate', tmp.path('whatever.sqlite')], { phrase: /unknown argument.*frobnicate|did you mean/i });
  });

  it('refuses a non-numeric concurrency', async ({ expect }) => {
    const db = tmp.path('c-abc.sqlite');
    await expectRefused(expect, ['crawl', server.url, '--db', db, '-c', 'abc'], {
      phrase: /--concurrency must be a whole number/,
      absent: [db],
    });
  });

  it('refuses a negative concurrency', async ({ expect }) => {
    const db = tmp.path('c-neg.sqlite');
    await expectRefused(expect, ['crawl', server.url, '--db', db, '-c', '-3'], {
      phrase: /--concurrency must be a whole number.*-3/,
      absent: [db],
    });
  });

  it('refuses an --exclude that is not a regular expression', async ({ expect }) => {
    const db = tmp.path('bad-exclude.sqlite');
    await expectRefused(expect, ['crawl', server.url, '--db', db, '--exclude', '('], {
      phrase: /--exclude "\(" is not a valid regular expression/,
      absent: [db],
    });
  });

  it('prints a stack trace for a failing case with -v', async ({ expect }) => {
    const db = tmp.path('missing-verbose.sqlite');
    const result = await execCli(['resume', db, '-v']);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length, result.stderr).toBeGreaterThan(1);
    expect(lines[0]).toMatch(/^crawlite: .*no such archive/);
    expect(result.stderr).toMatch(/^ {4}at /m);
    expect(existsSync(db)).toBe(false);
  });
});

describe.concurrent('SQL that query will not run', () => {
  const cases: [string, string, RegExp][] = [
    ['invalid SQL', 'selec url frm pages', /invalid SQL/],
    ['a DELETE', 'delete from url', /only reads/],
    ['an INSERT', "insert into meta (key, value) values ('x', 'y')", /only reads/],
    ['a CREATE TABLE', 'create table t (x)', /only reads/],
    ['two statements', 'select 1; select 2', /exactly one SQL statement/],
    ['ATTACH', "ATTACH DATABASE 'other.sqlite' AS other", /refuses ATTACH/],
  ];
  for (const [what, sql, phrase] of cases) {
    it(`refuses ${what} and leaves the archive byte-identical`, async ({ expect }) => {
      const db = archiveCopy('query');
      expect(sidecarsOf(db)).toEqual([]);
      await expectRefused(expect, ['query', db, sql], { phrase, file: db });
      expect(scalar(db, 'SELECT count(*) FROM url')).toBe(PAGES + 1);
    });
  }
});

/** 16 KiB of noise: not a SQLite header, and not a valid page either. */
const NOISE = randomBytes(16 * 1024);

function notSqliteFile(name: string): string {
  const path = tmp.path(`${name}.bin`);
  writeFileSync(path, NOISE);
  return path;
}

function otherProgramsSqlite(name: string): string {
  const path = tmp.path(`${name}.db`);
  const db = new Database(path);
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('hello'), ('world')");
  db.close();
  expect(sidecarsOf(path)).toEqual([]);
  return path;
}

/** A real archive whose user_version says a later crawlite wrote it. */
function newerArchive(): string {
  const path = archiveCopy('newer');
  const db = new Database(path);
  db.pragma('user_version = 999');
  db.close();
  expect(sidecarsOf(path)).toEqual([]);
  return path;
}

/** A real archive of PAGES pages with 8 KiB of noise written over the middle of the file. */
/**
 * Noise over the first page of the url table, which every command reads (where in the file that table
 * lies depends on the crawl's timing; noise in a body a command never reads would go unseen by it).
 */
function corruptArchive(): string {
  const path = archiveCopy('corrupt');
  expect(statSync(path).size).toBeGreaterThan(256 * 1024);
  const db = new Database(path, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const { rootpage } = db
    .prepare<[], { rootpage: number }>("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'url'")
    .get()!;
  db.close();
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, NOISE, 0, pageSize, (rootpage - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
  expect(sidecarsOf(path)).toEqual([]);
  return path;
}

const ARCHIVE_COMMANDS: Record<string, (db: string) => string[]> = {
  query: (db) => ['query', db, 'select count(*) from pages'],
  stats: (db) => ['stats', db],
  resume: (db) => ['resume', db],
  crawl: (db) => ['crawl', server.url, '--db', db],
};

describe.concurrent('files that are not crawlite archives', () => {
  for (const [name, argv] of Object.entries(ARCHIVE_COMMANDS)) {
    it(`${name} refuses a file of random bytes`, async ({ expect }) => {
      const file = notSqliteFile(`random-${name}`);
      await expectRefused(expect, argv(file), { phrase: /not a crawlite archive: not a SQLite database/, file });
    });

    it(`${name} refuses a SQLite database made by another program`, async ({ expect }) => {
      const file = otherProgramsSqlite(`other-${name}`);
      await expectRefused(expect, argv(file), { phrase: /not a crawlite archive: a SQLite database made by another program/, file });
      expect(scalar(file, 'SELECT group_concat(text) FROM notes')).toBe('hello,world');
    });
  }
});

describe.concurrent('an archive written by a newer crawlite', () => {
  for (const name of ['resume', 'query', 'stats']) {
    it(`${name} refuses it and leaves it byte-identical`, async ({ expect }) => {
      const file = newerArchive();
      await expectRefused(expect, ARCHIVE_COMMANDS[name]!(file), { phrase: /newer crawlite \(schema 999.*upgrade crawlite/, file });
      expect(scalar(file, 'PRAGMA user_version')).toBe(999);
    });
  }
});

describe.concurrent('a corrupt archive', () => {
  for (const name of ['resume', 'crawl', 'stats']) {
    it(`${name} refuses it and writes nothing`, async ({ expect }) => {
      const file = corruptArchive();
      await expectRefused(expect, ARCHIVE_COMMANDS[name]!(file), { phrase: /is corrupt/, file });
    });
  }
});

/** The main file of an archive copied while its crawl was running: everything written so far is still in the -wal left behind. */
function mainFileWithoutWal(): string {
  const source = tmp.path('running.sqlite');
  const db = new Database(source);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec(readFileSync(new URL('../migrations/0001_init.sql', import.meta.url), 'utf8'));
  db.exec("INSERT INTO meta (key, value) VALUES ('roots', '[\"http://127.0.0.1:1/\"]')");
  const copy = tmp.path('copied-without-wal.sqlite');
  copyFileSync(source, copy);
  db.close();
  expect(sidecarsOf(copy)).toEqual([]);
  return copy;
}

describe.concurrent('a file that holds no crawl', () => {
  it('resume refuses an empty file and leaves it empty, with no side files', async ({ expect }) => {
    const file = tmp.path('empty.sqlite');
    writeFileSync(file, '');
    await expectRefused(expect, ['resume', file], { phrase: /holds no crawl to resume/, file });
    expect(statSync(file).size).toBe(0);
  });

  it('resume refuses the main file of an archive copied without its -wal and leaves it as it is', async ({ expect }) => {
    const file = mainFileWithoutWal();
    await expectRefused(expect, ['resume', file], { phrase: /holds no crawl to resume/, file });
  });
});

describe('the server', () => {
  it('was reached only by the crawl that made the master archive', () => {
    // None of the refused crawls and resumes fetched anything.
    expect(server.totalHits()).toBe(PAGES + 1);
  });
});
