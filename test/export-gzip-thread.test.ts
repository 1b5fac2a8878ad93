import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gzipThreadsRunning, killGzipThreads } from '../src/export/gzip-thread.js';
import { exportArchive } from '../src/index.js';
import { tempDir } from './support/archive.js';
import { bodiesArchive } from './support/bodies-archive.js';
import { runCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';
import { mostDuring, sleep } from './support/wait.js';
import { readWarc } from './support/warc-read.js';

// An export compresses on gzip threads of its own, which end with it however it ends. The archive is
// larger than the bytes an export keeps outstanding, so it cannot end without the threads' answers.

const PAGES = 300;
const tmp = tempDir();
let db: string;

beforeAll(() => {
  db = bodiesArchive(tmp.path('bodies.sqlite'), PAGES, 64 * 1024);
});

afterAll(() => tmp.cleanup());

it('gzips on a thread of its own and ends it; each gzip member of the WARC holds one record, end to end', async () => {
  const warc = tmp.path('bodies.warc.gz');
  expect(gzipThreadsRunning()).toBe(0);
  const { result, most } = await mostDuring(() => runCli(['export', db, '--warc', warc, '-q']), gzipThreadsRunning);
  expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(most).toBeGreaterThanOrEqual(1);
  expect(gzipThreadsRunning()).toBe(0);

  const records = await readWarc(warc);
  // warcinfo, then a response, a request and an outlinks record per page.
  expect(records.map((record) => record.type)).toEqual([
    'warcinfo',
    ...Array.from({ length: PAGES }, () => ['response', 'request', 'metadata']).flat(),
  ]);
  const bytes = readFileSync(warc);
  let end = 0;
  for (const record of records) {
    expect(record.offset).toBe(end);
    end = record.offset + record.length;
    const inflated = gunzipSync(bytes.subarray(record.offset, end)).toString('latin1');
    expect(inflated.startsWith('WARC/1.1\r\n')).toBe(true);
    expect(inflated.indexOf('\r\nWARC/1.1\r\n')).toBe(-1);
  }
  expect(end).toBe(bytes.length);
});

it('fails with one line when a gzip thread dies, and leaves no file behind', async () => {
  const out = tmp.path('out');
  const warc = `${out}/died.warc.gz`;
  mkdirSync(out);
  const exported = runCli(['export', db, '--warc', warc, '--cdxj', `${out}/died.cdxj`, '-q']);
  // The export answers timers only while it waits for the threads, which is before it can have written all.
  while (gzipThreadsRunning() === 0) await sleep(1);
  await killGzipThreads();
  const result = await exported;
  expectOneLine(result, /^crawlite: export stopped: a gzip thread exited with code \d+; no output was written$/);
  expect(readdirSync(out)).toEqual([]);
  expect(gzipThreadsRunning()).toBe(0);
});

it('ends its threads when aborted, and leaves no file behind', async () => {
  const out = tmp.path('aborted');
  mkdirSync(out);
  const stop = new AbortController();
  const exported = exportArchive({ db, warc: `${out}/aborted.warc.gz`, signal: stop.signal });
  exported.catch(() => undefined);
  while (gzipThreadsRunning() === 0) await sleep(1);
  stop.abort();
  await expect(exported).rejects.toMatchObject({ name: 'AbortError' });
  expect(gzipThreadsRunning()).toBe(0);
  expect(readdirSync(out)).toEqual([]);
});
