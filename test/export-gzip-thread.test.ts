import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GzipThread, gzipThreadsRunning, killGzipThreads } from '../src/export/gzip-thread.js';
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

it('a thread asked to close drops the batches it has not started and ends by itself, not terminated', async () => {
  const thread = new GzipThread();
  const exitCode = new Promise<number>((resolve) => thread.worker.once('exit', resolve));
  const records = () => Array.from({ length: 16 }, (_, i) => new Uint8Array(4 * 1024).fill(i));
  expect(await thread.compress(records())).toHaveLength(16);
  // 400 batches (25 MiB) sent, then the close in the same tick: the thread sees the stop long before it could gzip them all.
  const batches = Array.from({ length: 400 }, () =>
    thread.compress(records()).then(
      (members) => members,
      (error: Error) => error,
    ),
  );
  await thread.close();
  const outcomes = await Promise.all(batches);
  const answered = outcomes.filter((outcome) => Array.isArray(outcome));
  for (const members of answered) expect(gunzipSync(members[15]!)).toEqual(Buffer.alloc(4 * 1024, 15));
  expect(answered.length).toBeLessThan(400);
  for (const dropped of outcomes.filter((outcome) => outcome instanceof Error)) expect(dropped.message).toMatch(/was ended/);
  // A terminated thread exits with 1; one that ended by itself, with 0.
  expect(await exitCode).toBe(0);
  expect(gzipThreadsRunning()).toBe(0);
  await expect(thread.compress([new Uint8Array(1)])).rejects.toThrow(/was ended/);
});

it('closing gzip threads while they gzip never aborts the process (Node 20 aborts when one is terminated mid-gzip)', async () => {
  // In a process of its own: the abort ("close before init") takes the whole process down. Tiny records make
  // zlib set up a stream most of the time, where a terminated thread aborted within a few cycles.
  const script = `
    const { GzipThread } = await import(process.argv[2]);
    for (let cycle = 0; cycle < 100; cycle++) {
      await Promise.all(Array.from({ length: 4 }, async () => {
        const thread = new GzipThread();
        const batches = Array.from({ length: 400 }, () => thread.compress(Array.from({ length: 16 }, () => new Uint8Array(1))).catch(() => undefined));
        await batches[0];
        await thread.close();
      }));
    }
    console.log('closed 400 threads');`;
  // A file, not -e: evaluated with -e, the same script did not abort when threads were terminated.
  const file = tmp.path('close-threads.mjs');
  writeFileSync(file, script);
  const run = await execNode([file, fileURLToPath(new URL('../dist/export/gzip-thread.js', import.meta.url))]);
  expect(run.stderr).not.toContain('close before init');
  expect(run).toMatchObject({ code: 0, stdout: 'closed 400 threads\n' });
}, 120_000);

function execNode(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: 110_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}
