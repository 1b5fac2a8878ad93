import { expect, it } from 'vitest';
import { GzipThread, gzipThreadsRunning } from '../src/export/gzip-thread.js';
import { stopWorkerThreads } from '../src/index.js';
import { ParsePool, parseThreadsRunning } from '../src/pipeline/parse/parse-pool.js';
import { claimedPage } from './support/crawl-items.js';
import { threadsOf } from './support/worker-threads.js';

// A quit at once (a second Ctrl-C) exits with process.exit, which terminates the process's threads; one
// terminated inside zlib aborts Node 20. stopWorkerThreads() ends them first, each by itself.

const claim = claimedPage('http://site/');

it('ends every parse and gzip thread holding work by itself, not terminated, and the pools close after', async () => {
  const parse = await threadsOf(
    () => new ParsePool(2),
    (pool) => pool.started(),
  );
  const gzip = await threadsOf(
    () => new GzipThread(),
    (thread) => thread.compress([new Uint8Array(1)]),
  );
  expect(parse.exits).toHaveLength(2);
  expect(gzip.exits).toHaveLength(1);

  const compact = { maxRedirects: 10, maxBodyBytes: 1 << 20, compact: true };
  const page = (i: number) => ({ claim, contentType: 'text/html', body: Buffer.from(`<p>${String(i).repeat(2_000)}</p>`) });
  // Each thread has answered once: it is listening, and what follows is work in its hands.
  await Promise.all([parse.made.parse(page(0), compact), parse.made.parse(page(1), compact)]);
  const parses = Array.from({ length: 2_000 }, (_, i) => parse.made.parse(page(i), compact).catch((error: Error) => error));
  const batches = Array.from({ length: 400 }, () =>
    gzip.made.compress(Array.from({ length: 16 }, () => new Uint8Array(4096))).catch((error: Error) => error),
  );

  await stopWorkerThreads(30_000);
  // A terminated thread exits with 1; one that ended by itself, with 0.
  expect(await Promise.all([...parse.exits, ...gzip.exits])).toEqual([0, 0, 0]);
  expect(parseThreadsRunning()).toBe(0);
  expect(gzipThreadsRunning()).toBe(0);
  // What the threads had not started is dropped, and said so.
  expect(((await batches.at(-1)) as Error).message).toMatch(/a gzip thread was ended/);
  expect(((await parses.at(-1)) as Error).message).toMatch(/a parse thread was ended/);
  await parse.made.close();
  await gzip.made.close();
});

it('ends a thread never given work at once', async () => {
  const parse = await threadsOf(
    () => new ParsePool(1),
    (pool) => pool.started(),
  );
  await stopWorkerThreads(30_000);
  // Terminated: it was never given a response, so it could not be inside zlib.
  expect(await Promise.all(parse.exits)).toEqual([1]);
  expect(parseThreadsRunning()).toBe(0);
  await parse.made.close();
});
