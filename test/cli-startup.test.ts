import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { BIN, execCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// Every command pays for the modules it loads at start-up: only a crawl needs the HTTP client, rxjs and the HTML parser.

const RECORDER = fileURLToPath(new URL('./support/record-imports.mjs', import.meta.url));
const CRAWL_ONLY = ['undici', 'rxjs', 'htmlparser2', 'tough-cookie'];
const tmp = tempDir();
let server: TestServer;
let archive: string;
let runs = 0;

const BUNDLE = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
/** What each file of the bundle holds, from the build's esbuild metafile: output path -> its input files. */
const bundled = JSON.parse(readFileSync(`${BUNDLE}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
const packageOf = (path: string) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];

/** The files one run of the built CLI loaded from node_modules: imported, or bundled into a file of the bundle it loaded. */
async function modulesLoaded(argv: string[]): Promise<string[]> {
  runs += 1;
  const log = tmp.path(`imports-${runs}.log`);
  await promisify(execFile)(process.execPath, ['--import', RECORDER, BIN, ...argv], {
    env: { ...process.env, CRAWLITE_IMPORT_LOG: log },
    timeout: 20_000,
  }).catch(() => undefined);
  const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const modules: string[] = [];
  for (const url of urls) {
    if (!url.startsWith('file:')) continue;
    const path = fileURLToPath(url);
    if (!path.startsWith(BUNDLE)) {
      if (packageOf(path)) modules.push(path);
      continue;
    }
    const output = bundled.outputs[`dist/bundle/${path.slice(BUNDLE.length)}`];
    expect(output, `${path} is not in the bundle's metafile`).toBeDefined();
    modules.push(...Object.keys(output!.inputs).filter((input) => packageOf(input)));
  }
  return modules;
}

/** The packages one run of the built CLI loaded. */
async function packagesLoaded(argv: string[]): Promise<Set<string>> {
  return new Set((await modulesLoaded(argv)).map((path) => packageOf(path)!));
}

beforeAll(async () => {
  server = await startServer(routes({ '/': html('one page') }));
  archive = tmp.path('site.sqlite');
  const crawled = await execCli(['crawl', server.url, '--db', archive, '-q']);
  expect(crawled.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('start-up', () => {
  it.each([
    [['--version']],
    [['--help']],
    [['crawl', '--help']],
    [['stats', 'ARCHIVE']],
    [['query', 'ARCHIVE', 'select count(*) from pages']],
  ])('crawlite %j loads none of the crawl-only packages', async (argv) => {
    const loaded = await packagesLoaded(argv.map((arg) => (arg === 'ARCHIVE' ? archive : arg)));
    expect(loaded.has('yargs')).toBe(true);
    expect(CRAWL_ONLY.filter((name) => loaded.has(name))).toEqual([]);
  });

  it('a crawl loads what it needs', async () => {
    const loaded = await packagesLoaded(['crawl', server.url, '--db', tmp.path('again.sqlite'), '-q']);
    expect(CRAWL_ONLY.filter((name) => loaded.has(name))).toEqual(CRAWL_ONLY);
    // Off a terminal there is no live status line to draw.
    expect(loaded.has('log-update')).toBe(false);
  });

  it("a crawl loads undici's HTTP client, not its fetch, WebSocket, mocks or caches", async () => {
    const undici = (await modulesLoaded(['crawl', server.url, '--db', tmp.path('client.sqlite'), '-q'])).filter(
      (path) => packageOf(path) === 'undici',
    );
    expect(undici.some((path) => path.endsWith('lib/dispatcher/agent.js'))).toBe(true);
    // What its index adds: fetch itself (its body helpers come with the client, for FormData uploads), WebSocket, EventSource, cookies, mocks, caches.
    expect(
      undici.filter((path) => /\/lib\/(mock|cache|interceptor|web\/(websocket|eventsource|cookies)|web\/fetch\/index\.js)/.test(path)),
    ).toEqual([]);
  });
});
