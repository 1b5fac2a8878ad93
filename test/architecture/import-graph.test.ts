// The dependency rule (docs/architecture.md), held against the imports src/ really has: every static
// import and re-export, dynamic import(), import('...') type and require(), type-only ones included.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EXCEPTIONS,
  FLOORS,
  publishedModules,
  roomRuleBroken,
  SHELL,
  shellViolations,
  violations,
} from '../../scripts/architecture/dependency-rules.mjs';
import { tempDir } from '../support/archive.js';
import { describeViolation, readImportGraph, srcImportGraph } from '../support/import-graph.js';

const graph = srcImportGraph();
const found = violations(graph);
const ROOMS_ABOVE_PIPELINE = ['storage', 'http', 'pg', 'run', 'library', 'cli', 'serve', 'import', 'export', 'merge'];

describe('the import graph of src/', () => {
  it('is read whole: every relative import names a file of src/, and imports of each kind are seen', () => {
    expect(
      graph.imports.filter((edge) => edge.to === undefined).map((edge) => `src/${edge.from}:${edge.line} '${edge.specifier}'`),
    ).toEqual([]);
    expect(graph.files.length).toBeGreaterThan(100);
    const seen = (from: string, to: string) => graph.imports.some((edge) => edge.from === from && edge.to === to);
    expect(seen('storage/crawl-state/sqlite-frontier.ts', 'pipeline/ports.ts')).toBe(true);
    expect([...new Set(graph.imports.map((edge) => edge.kind))]).toEqual(expect.arrayContaining(['import', 'export', 'dynamic', 'type']));
    expect(graph.packages.some((use) => use.name === 'robots-parser' && use.kind === 'require')).toBe(true);
  });

  it('every room stands on a floor', () => {
    const rooms = new Set(graph.files.map((file) => file.room));
    const placed = new Set(FLOORS.flatMap((floor) => floor.rooms));
    expect([...rooms].filter((room) => !placed.has(room))).toEqual([]);
  });

  it('no import runs back up a floor, or sideways between independent rooms, but the excepted ones', () => {
    expect(found.filter((v) => !v.exception && !v.toPackage).map(describeViolation)).toEqual([]);
  });

  it('only src/storage imports better-sqlite3 (a type-only import too)', () => {
    expect(found.filter((v) => v.toPackage).map(describeViolation)).toEqual([]);
    expect(graph.packages.some((use) => use.name === 'better-sqlite3' && use.fromRoom === 'storage')).toBe(true);
  });

  it("storage is entered through its doors only: a room's index.ts, or public.ts for the package's API", () => {
    const door = /^storage\/([a-z-]+\/index|public)\.ts$/;
    const stray = graph.imports.filter(
      (edge) => edge.to?.startsWith('storage/') && !edge.from.startsWith('storage/') && !door.test(edge.to),
    );
    expect(stray.map((edge) => `src/${edge.from}:${edge.line} imports src/${edge.to}`)).toEqual([]);
    // The rooms themselves: what a newcomer can name.
    const rooms = new Set(graph.files.filter((file) => file.file.startsWith('storage/')).map((file) => file.file.split('/')[1]));
    expect([...rooms].sort()).toEqual(['archive', 'control', 'crawl-state', 'merge', 'public.ts', 'query', 'reader', 'writer']);
  });

  it('the command line is a shell over the library: it imports only what src/library/index.ts publishes, and two toolkits (type-only imports too)', () => {
    expect(shellViolations(graph).map(describeViolation)).toEqual([]);
    // What it may import, named: no room of the work (storage, http, pg, run, pipeline, serve, export, import, merge, browser), no url or html.
    const reached = new Set(graph.imports.filter((edge) => edge.fromRoom === 'cli' && edge.toRoom !== 'cli').map((edge) => edge.toRoom));
    expect([...reached].sort()).toEqual(['crawlite-error.ts', 'format-bytes.ts', 'library']);
    // The library modules it imports are the entry and modules the entry re-exports, so a program can do all the command line does.
    const published = publishedModules(graph);
    const used = new Set(graph.imports.filter((edge) => edge.fromRoom === 'cli' && edge.toRoom === 'library').map((edge) => edge.to!));
    expect([...used].filter((file) => !published.has(file))).toEqual([]);
    expect(used.has(SHELL.entry)).toBe(true);
    // And the package door is the library's entry.
    expect(graph.imports.filter((edge) => edge.from === 'index.ts').map((edge) => edge.to)).toEqual([SHELL.entry]);
  });

  it('each exception still matches an import that breaks the rule, and says why', () => {
    const used = new Set(found.map((v) => v.exception));
    expect(EXCEPTIONS.filter((allowed) => !used.has(allowed))).toEqual([]);
    for (const allowed of EXCEPTIONS) expect(allowed.reason.length).toBeGreaterThan(20);
  });
});

// The floors are data; these are the rules they must keep saying, so that no edit to them lifts one quietly.
describe('the floors forbid', () => {
  const forbidden = (from: string, to: string[]) => to.filter((room) => roomRuleBroken(from, room) === undefined);
  it('pipeline importing the rooms that use it', () => {
    expect(forbidden('pipeline', ROOMS_ABOVE_PIPELINE)).toEqual([]);
  });
  it('storage importing the other adapters or anything above it', () => {
    expect(forbidden('storage', ['http', 'pg', 'run', 'library', 'cli', 'serve', 'import', 'export', 'merge'])).toEqual([]);
  });
  it('http and pg importing storage, each other, or anything above them', () => {
    expect(forbidden('http', ['storage', 'pg', 'run', 'library', 'cli'])).toEqual([]);
    expect(forbidden('pg', ['storage', 'http', 'run', 'library', 'cli'])).toEqual([]);
  });
  it('run importing library or cli, and library importing cli', () => {
    expect(forbidden('run', ['cli', 'library', 'serve', 'import', 'export', 'merge'])).toEqual([]);
    expect(forbidden('library', ['cli'])).toEqual([]);
  });
  it('any room importing cli', () => {
    const rooms = FLOORS.flatMap((floor) => floor.rooms).filter((room) => room !== 'cli');
    expect(rooms.filter((room) => roomRuleBroken(room, 'cli') === undefined)).toEqual([]);
  });
  it('the html and url toolkits importing pipeline or anything above it', () => {
    expect(forbidden('html', ['pipeline', ...ROOMS_ABOVE_PIPELINE])).toEqual([]);
    expect(forbidden('url', ['pipeline', ...ROOMS_ABOVE_PIPELINE])).toEqual([]);
  });
  it('a room no floor names, until it is placed', () => {
    expect(roomRuleBroken('newroom', 'crawlite-error.ts')).toMatch(/room newroom stands on no floor/);
    expect(roomRuleBroken('cli', 'newroom')).toMatch(/room newroom stands on no floor/);
  });
});

describe('the reader', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(tmp.dir, file)), { recursive: true });
    writeFileSync(join(tmp.dir, file), text);
  };

  it('sees each way of importing, and no import written in a comment or a string', () => {
    write('pipeline/ports.ts', 'export type Port = number;\n');
    write('pipeline/crawl.ts', 'export const crawl = 1;\n');
    write('storage/a.ts', 'export const a = 1;\n');
    write(
      'run/uses.ts',
      [
        "import { crawl } from '../pipeline/crawl.js';",
        "import type { Port } from '../pipeline/ports.js';",
        "export { a } from '../storage/a.js';",
        "const later = () => import('../storage/a.js');",
        "type Later = import('../pipeline/ports.js').Port;",
        "import Database from 'better-sqlite3';",
        "// import { x } from '../cli/x.js';",
        'const text = "import { y } from \'../cli/y.js\'";',
        '',
      ].join('\n'),
    );
    const read = readImportGraph(tmp.dir);
    expect(
      read.imports.filter((edge) => edge.from === 'run/uses.ts').map(({ to, kind, typeOnly, line }) => ({ to, kind, typeOnly, line })),
    ).toEqual([
      { to: 'pipeline/crawl.ts', kind: 'import', typeOnly: false, line: 1 },
      { to: 'pipeline/ports.ts', kind: 'import', typeOnly: true, line: 2 },
      { to: 'storage/a.ts', kind: 'export', typeOnly: false, line: 3 },
      { to: 'storage/a.ts', kind: 'dynamic', typeOnly: false, line: 4 },
      { to: 'pipeline/ports.ts', kind: 'type', typeOnly: true, line: 5 },
    ]);
    expect(violations(read).map(describeViolation)).toEqual([
      'src/run/uses.ts:6 imports package better-sqlite3: only storage may import better-sqlite3',
    ]);
  });

  it("holds the command line to the library's published modules, a type-only import too", () => {
    write('storage/public.ts', 'export type Report = { pages: number };\n');
    write('library/door.ts', 'export const door = 1;\n');
    write('library/inside.ts', 'export const inside = 1;\n');
    write('library/index.ts', "export { door } from './door.js';\n");
    write('crawlite-error.ts', 'export class CrawliteError extends Error {}\n');
    write(
      'cli/shell.ts',
      [
        "import { door } from '../library/door.js';",
        "import type { Report } from '../storage/public.js';",
        "const later = () => import('../library/inside.js');",
        "import { CrawliteError } from '../crawlite-error.js';",
        "import type { door as same } from '../library/index.js';",
        '',
      ].join('\n'),
    );
    const read = readImportGraph(tmp.dir);
    expect(shellViolations(read).map(describeViolation)).toEqual([
      'src/cli/shell.ts:2 imports src/storage/public.ts (type-only): cli is a shell over the library: it imports src/library/index.ts (or a module it re-exports) and the toolkits crawlite-error.ts, format-bytes.ts, not storage',
      'src/cli/shell.ts:3 imports src/library/inside.ts: cli imports only what the library publishes: src/library/index.ts or a module it re-exports',
    ]);
  });
});
