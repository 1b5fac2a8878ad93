import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { linksPage, startServer, type TestServer } from './support/test-server.js';

// An export killed before it finished leaves its hidden temporary files
// (`.NAME.HEX.partial`, and sort chunks next to them). The next export of the
// same output removes them, and nothing else: not another output's, not a
// name that only looks alike, not a directory.

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const out = tmp.path('out');

const LEFTOVERS = [
  '.site.wacz.0123abcd.partial',
  '.site.wacz.warc.gz.deadbeef.partial',
  '.site.wacz.warc.gz.deadbeef.partial.sort-0',
  '.site.wacz.warc.gz.deadbeef.partial.sort-12',
  '.site.wacz.index.cdxj.00ff00ff.partial',
  '.site.wacz.pages.jsonl.a1b2c3d4.partial',
  '.site.warc.gz.11223344.partial',
];
const DECOYS = [
  '.other.wacz.0123abcd.partial',
  '.site.wacz.0123abcd.partial.bak',
  '.site.wacz.0123abcX.partial',
  '.site.wacz.0123abcd0.partial',
  'site.wacz.0123abcd.partial',
  '.xsite.wacz.0123abcd.partial',
  '.site.waczz.0123abcd.partial',
  'notes.txt',
];

beforeAll(async () => {
  server = await startServer((_req, res, path) => {
    res.writeHead(path === '/' || path === '/a' ? 200 : 404, { 'content-type': 'text/html' });
    res.end(linksPage(['/a']));
  });
  const crawled = await execCli(['crawl', server.url, '--db', db, '-q']);
  expect(crawled.code, crawled.stderr).toBe(0);
  mkdirSync(out);
  for (const name of [...LEFTOVERS, ...DECOYS]) writeFileSync(`${out}/${name}`, 'left behind');
  // A directory and a link under an export's temporary name, and the same name one directory down.
  mkdirSync(`${out}/.site.wacz.99999999.partial`);
  writeFileSync(tmp.path('precious'), 'kept');
  symlinkSync(tmp.path('precious'), `${out}/.site.wacz.77777777.partial`);
  mkdirSync(`${out}/sub`);
  writeFileSync(`${out}/sub/.site.wacz.0123abcd.partial`, 'another directory');
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('an export refused before it starts leaves the leftovers as they are', async () => {
  writeFileSync(`${out}/site.wacz`, 'an earlier export');
  const refused = await execCli(['export', db, '--wacz', `${out}/site.wacz`]);
  expect(refused.code).not.toBe(0);
  for (const name of LEFTOVERS) expect(existsSync(`${out}/${name}`), name).toBe(true);
});

it('the next export of the same outputs removes their leftovers, and nothing else', async () => {
  const run = await execCli(['export', db, '--wacz', `${out}/site.wacz`, '--warc', `${out}/site.warc.gz`, '--force']);
  expect(run.code, run.stderr).toBe(0);
  expect(readdirSync(out).sort()).toEqual(
    [...DECOYS, '.site.wacz.99999999.partial', '.site.wacz.77777777.partial', 'site.wacz', 'site.warc.gz', 'sub'].sort(),
  );
  expect(readdirSync(`${out}/sub`)).toEqual(['.site.wacz.0123abcd.partial']);
  expect(existsSync(tmp.path('precious'))).toBe(true);
});
