import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// The package as users get it: `npm pack` of the built project, unpacked into a fresh project's
// node_modules, imported by its name. Its dependencies are linked from this checkout's node_modules
// instead of installed: `npm install <tarball>` would ask the registry for them (no network in tests,
// and tens of seconds with it), while what is under test is the tarball: its files, its "exports"
// map, and its type declarations. Only the dependencies its package.json declares are linked, plus
// @types/node, which a TypeScript project on Node has of its own: this checkout's devDependencies
// (@types/better-sqlite3 and the like) are not there for a user, so the declarations must not need them.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODULES = realpathSync(join(ROOT, 'node_modules'));
const tmp = tempDir();
const project = tmp.path('project');
let server: TestServer;

const SCRIPT = `
import { crawl, crawlWorker, frontierStatus, initFrontier, merge, openArchive, InvalidOptionError } from 'crawlite';

const [root, db] = process.argv.slice(2);
const run = crawl({ roots: [root], db, concurrency: 2 });
let fetched = 0;
run.events.subscribe((event) => { if (event.type === 'fetched') fetched += 1; });
const report = await run.done;
const reader = openArchive(db);
const pages = [...reader.pages()].map((page) => ({ url: page.url, status: page.status, title: page.title }));
reader.close();
const refused = await crawl({ roots: [root], db, concurrency: -1 }).done.catch((error) => error instanceof InvalidOptionError && error.code);
const merged = await merge({ shards: [db], db: db.replace(/\.sqlite$/, '-merged.sqlite') });
const scale = [crawlWorker, frontierStatus, initFrontier].map((fn) => typeof fn);
console.log(JSON.stringify({ fetched, endedBy: report.endedBy, done: report.urls.done, pagesFetched: report.pagesFetched, pages, refused, merged: merged.pages, scale }));
`;

// Compiled with the package's declarations: the names and types a TypeScript user sees.
const TYPED = `
import { crawl, openArchive, type CrawlReport, type ArchivedPage, ArchiveBusyError } from 'crawlite';
import { crawlWorker, frontierStatus, initFrontier, merge, NoFrontierError, type FrontierStatus, type MergeReport, type WorkerReport } from 'crawlite';
import { SearchQueryError, type RootState, type SearchHit } from 'crawlite';
const handle = crawl({ roots: ['http://127.0.0.1/'], db: 'x.sqlite', maxPages: 3, headers: { 'x-test': '1' } });
const done: Promise<CrawlReport> = handle.done;
const first: ArchivedPage | undefined = openArchive('x.sqlite').page('http://127.0.0.1/');
const code: string = new ArchiveBusyError('x.sqlite', 'busy').code;
const worker: Promise<WorkerReport> = crawlWorker({ db: 'shard.sqlite', concurrency: 2, leaseMs: 30_000 }).done;
const status: Promise<FrontierStatus> = frontierStatus({ connection: 'postgres://localhost/crawl' });
const merged: Promise<MergeReport> = merge({ shards: ['shard.sqlite'], db: 'merged.sqlite', onProgress: (event) => event.type });
const stored = initFrontier({ roots: ['http://127.0.0.1/'], maxPages: 3 }).then((result) => result.queued);
const missing: string = new NoFrontierError(undefined).code;
const reader = openArchive('x.sqlite');
const hits: SearchHit[] = reader.search('word', { limit: 10 });
const columns: string[] = reader.query('SELECT url FROM pages WHERE status = ?', [200]).columns;
const pages: number = reader.report().pages;
const roots: Promise<RootState[]> = done.then((report) => report.roots);
const unparsed: string = new SearchQueryError('"', 'unclosed').code;
void [done, first, code, worker, status, merged, stored, missing, hits, columns, pages, roots, unparsed];
`;

/** The examples of the library's page in the manual (docs/library.md), as written there. */
function libraryPageExamples(): string[] {
  const page = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
  return [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** tsc's complaints about `files` in the project, as a strict project on Node would compile them; '' when none. */
async function compile(files: string[]): Promise<string> {
  const tsc = join(MODULES, 'typescript', 'bin', 'tsc');
  const args = [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', ...files];
  return run(process.execPath, args, { cwd: project, timeout: 110_000 }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}

beforeAll(async () => {
  server = await startServer(
    routes({ '/': html('<a href="/a">a</a> <a href="/b">b</a>', 'home'), '/a': html('a', 'page a'), '/b': html('b', 'page b') }),
  );
  // --ignore-scripts: "prepare" would build again; `npm test` has built dist already.
  await run('npm', ['pack', '--pack-destination', tmp.dir, '--ignore-scripts', '--silent'], { cwd: ROOT, timeout: 30_000 });
  const tarball = readdirSync(tmp.dir).find((name) => name.endsWith('.tgz'))!;
  const installed = join(project, 'node_modules', 'crawlite');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(tmp.dir, tarball), '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of [...Object.keys(manifest.dependencies), '@types/node']) {
    mkdirSync(join(project, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(join(MODULES, name), join(project, 'node_modules', name));
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
}, 60_000);

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

it('installs from its packed tarball and crawls, reads and refuses through the package name', async () => {
  writeFileSync(join(project, 'crawl.mjs'), SCRIPT);

  const { stdout } = await run(process.execPath, ['crawl.mjs', server.url, tmp.path('site.sqlite')], { cwd: project, timeout: 30_000 });
  const result = JSON.parse(stdout) as {
    fetched: number;
    endedBy: string;
    done: number;
    pagesFetched: number;
    pages: { url: string; status: number; title: string }[];
    refused: unknown;
  };
  expect(result).toMatchObject({
    endedBy: 'finished',
    pagesFetched: 3,
    refused: 'INVALID_OPTION',
    merged: 4,
    scale: ['function', 'function', 'function'],
  });
  // robots.txt (a 404 here) is stored too.
  expect(result.done).toBe(4);
  expect(result.fetched).toBe(4);
  expect(result.pages.filter((page) => page.status === 200)).toEqual([
    { url: server.url, status: 200, title: 'home' },
    { url: `${server.url}a`, status: 200, title: 'page a' },
    { url: `${server.url}b`, status: 200, title: 'page b' },
  ]);
}, 60_000);

// No --skipLibCheck: the package's declarations are checked as a user's compiler checks them, and
// a driver type left in them (better-sqlite3's, whose types are a devDependency) fails with TS7016.
// One tsc run for both files: each run loads every declaration the package reaches.
it('type-checks the library examples of docs/library.md and typed uses in a strict project with only its declared dependencies', async () => {
  const examples = libraryPageExamples();
  expect(examples.length).toBeGreaterThanOrEqual(2);
  const files = examples.map((code, i) => {
    expect(code).toContain("from 'crawlite'");
    writeFileSync(join(project, `readme-${i + 1}.ts`), code);
    return `readme-${i + 1}.ts`;
  });
  writeFileSync(join(project, 'typed.ts'), TYPED);
  expect(await compile([...files, 'typed.ts'])).toBe('');
}, 120_000);
