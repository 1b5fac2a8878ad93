import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { sleep } from './support/wait.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// An export that cannot be done is refused with one line, before anything is
// written; one that stops part-way leaves nothing behind under any name.

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const outDir = tmp.path('out');

const outFiles = () => readdirSync(outDir).sort();

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/a">a</a>'), '/a': html('a') }));
  expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
  mkdirSync(outDir);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('crawlite export: bad input', () => {
  it('refuses an output in a directory that does not exist', async () => {
    expectOneLine(await execCli(['export', db, '--warc', tmp.path('nowhere/site.warc.gz')]), /nowhere.*does not exist/);
    expect(outFiles()).toEqual([]);
  });

  it('refuses to overwrite an output that exists, unless --force', async () => {
    const existing = `${outDir}/site.warc.gz`;
    writeFileSync(existing, 'keep me');
    expectOneLine(
      await execCli(['export', db, '--warc', existing, '--cdxj', `${outDir}/site.cdxj`]),
      /site\.warc\.gz: already exists; pass --force/,
    );
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
    expect(outFiles()).toEqual(['site.warc.gz']);
    const forced = await execCli(['export', db, '--warc', existing, '--force', '-q']);
    expect(forced).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(existing).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(outFiles()).toEqual(['site.warc.gz']);
  });

  it('refuses a file that is not an archive, and writes nothing', async () => {
    const notArchive = tmp.path('notes.txt');
    writeFileSync(notArchive, 'just some text, long enough to be more than the hundred bytes of a SQLite header, surely, by now. yes.');
    expectOneLine(await execCli(['export', notArchive, '--wacz', `${outDir}/x.wacz`]), /not a crawlite archive/);
    expect(outFiles()).not.toContain('x.wacz');
    expect(outFiles().filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('refuses to export an archive onto itself, and asks for an output', async () => {
    const before = fileSha256(db);
    expectOneLine(await execCli(['export', db, '--warc', db, '--force']), /is the archive being exported/);
    expect(fileSha256(db)).toBe(before);
    expectOneLine(
      await execCli(['export', db, '--cdxj', `${outDir}/only.cdxj`]),
      /name an output: --warc FILE, --wacz FILE and\/or --markdown DIR/,
    );
  });

  it('leaves nothing behind when stopped part-way', async () => {
    const before = outFiles();
    const result = await runCli(
      ['export', db, '--warc', `${outDir}/stopped.warc.gz`, '--cdxj', `${outDir}/stopped.cdxj`, '--wacz', `${outDir}/stopped.wacz`],
      {
        onStart: (interrupt) => interrupt(),
      },
    );
    expect(result).toMatchObject({ code: 130, stderr: 'crawlite: export interrupted; no output was written\n' });
    expect(outFiles()).toEqual(before);
    // Nor a moment later: a file still being opened when the export stopped would appear now.
    await sleep(200);
    expect(outFiles()).toEqual(before);
  });
});
