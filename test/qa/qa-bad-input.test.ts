import { chmodSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, tempDir } from '../support/archive.js';
import { execCli, runCli } from '../support/cli.js';
import { expectOneLine } from '../support/one-line-error.js';
import { startQaSite } from '../support/qa-site.js';
import { qa } from '../../src/library/index.js';

// `crawlite qa` refuses what it cannot check in one line, before it opens the archive or starts anything.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('crawlite qa refuses', () => {
  const db = tmp.path('site.sqlite');
  beforeAll(async () => {
    const site = await startQaSite();
    const crawl = await runCli(['crawl', site.url, '--db', db, '-q']);
    await site.close();
    expect(crawl.code, crawl.stderr).toBe(0);
  }, 60_000);

  it('a missing Chromium, saying how to get one, and leaves the archive as it was', async () => {
    const before = fileSha256(db);
    expectOneLine(
      await execCli(['qa', db, '--chromium', tmp.path('no-chromium')]),
      /no Chromium at .*no-chromium: install it \(apt-get install chromium\) or give its path with --chromium PATH/,
    );
    expect(fileSha256(db)).toBe(before);
    expectOneLine(await execCli(['qa', db], { env: { CRAWLITE_CHROMIUM: tmp.path('none-here') } }), /no Chromium at .*none-here/);
  });

  it('a Chromium that will not start, in one line', async () => {
    const broken = tmp.path('broken-chromium');
    writeFileSync(broken, '#!/bin/sh\necho broken >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    const run = await execCli(['qa', db, '--chromium', broken, '-q']);
    expectOneLine(run, /Chromium \(.*broken-chromium\) would not start to replay the archive: .*; check that it runs/);
  });

  it('a file that is not an archive, and one that does not exist', async () => {
    const text = tmp.path('notes.txt');
    writeFileSync(text, 'not an archive\n');
    expectOneLine(await execCli(['qa', text]), /notes\.txt is not a crawlite archive/);
    expectOneLine(await execCli(['qa', tmp.path('missing.sqlite')]), /missing\.sqlite: no such archive/);
  });

  it('options out of range', async () => {
    expectOneLine(await runCli(['qa', db, '--concurrency', '0']), /--concurrency must be a whole number from 1 to 16, got 0/);
    expectOneLine(await runCli(['qa', db, '--threshold', '2']), /--threshold must be a number from 0 to 1, got 2/);
    expectOneLine(await runCli(['qa', db, '--page-timeout', 'soon']), /--page-timeout must be a whole number of milliseconds/);
  });

  it('from the library: typed errors with their code, before the archive is opened', async () => {
    const before = fileSha256(db);
    await expect(qa({ db, concurrency: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTION', option: 'concurrency' });
    await expect(qa({ db, threshold: 1.5 })).rejects.toMatchObject({ code: 'INVALID_OPTION', option: 'threshold' });
    await expect(qa({ db, pageTimeoutMs: 0.5 })).rejects.toMatchObject({ code: 'INVALID_OPTION', option: 'pageTimeoutMs' });
    await expect(qa({ db, chromium: tmp.path('no-chromium') })).rejects.toMatchObject({ code: 'browser_missing' });
    expect(fileSha256(db)).toBe(before);
  });
});
