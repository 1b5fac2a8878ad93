import { createHash } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ParsePool, parseThreadsRunning } from '../src/pipeline/parse/parse-pool.js';
import { readArchive, tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { mostDuring, waitFor } from './support/wait.js';
import { threadsOf } from './support/worker-threads.js';
import { claimedPage } from './support/crawl-items.js';

const PAGES = 30;
let server: TestServer;
const tmp = tempDir();
const claim = claimedPage('http://site/');
const settings = { maxRedirects: 10, maxBodyBytes: 1 << 20 };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

beforeAll(async () => {
  const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
  // Slow pages keep the crawl running long enough to be watched.
  const table = Object.fromEntries(
    Array.from({ length: PAGES }, (_, i) => [`/p${i}`, { ...html(`${links} ${'filler '.repeat(i * 300)}`), delayMs: 20 }]),
  );
  server = await startServer(routes({ '/': html(links), ...table }));
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

it('parses on another thread, and gives the body back intact with its SHA-256', async () => {
  const pool = new ParsePool(1);
  try {
    await pool.started();
    const page = Buffer.from(`<a href="/a">a</a>${'x'.repeat(20_000)}`);
    const copy = Buffer.from(page);
    const parsed = await pool.parse({ claim, contentType: 'text/html', body: page }, settings);
    expect(parsed.threadId).not.toBe(threadId);
    expect(parsed.result.found.map((found) => found.url)).toEqual(['http://site/a']);
    expect(parsed.body.equals(copy)).toBe(true);
    expect(parsed.sha256.equals(sha256(copy))).toBe(true);
  } finally {
    await pool.close();
  }
});

it('answers responses sent in one turn together, each with its own body and links', async () => {
  const pool = new ParsePool(2);
  try {
    await pool.started();
    const pages = Array.from({ length: 20 }, (_, i) => Buffer.from(`<a href="/to/${i}">${i}</a>${String(i).repeat(5_000)}`));
    const copies = pages.map((page) => Buffer.from(page));
    const parsed = await Promise.all(pages.map((body) => pool.parse({ claim, contentType: 'text/html', body }, settings)));
    parsed.forEach(({ result, body }, i) => {
      expect(result.found.map((found) => found.url)).toEqual([`http://site/to/${i}`]);
      expect(body.equals(copies[i]!)).toBe(true);
    });
    // Both threads took a share.
    expect(new Set(parsed.map((one) => one.threadId)).size).toBe(2);
  } finally {
    await pool.close();
  }
});

it('parses here, the same way, while no thread has loaded yet; then on the thread', async () => {
  const pool = new ParsePool(1);
  try {
    const page = Buffer.from(`<a href="/a">a</a>${'x'.repeat(20_000)}`);
    const copy = Buffer.from(page);
    // Asked at once: the thread is still loading its modules.
    const early = await pool.parse({ claim, contentType: 'text/html', body: page }, settings);
    expect(early.threadId).toBe(threadId);
    await pool.started();
    const later = await pool.parse({ claim, contentType: 'text/html', body: Buffer.from(copy) }, settings);
    expect(later.threadId).not.toBe(threadId);
    for (const parsed of [early, later]) {
      expect(parsed.result).toEqual(later.result);
      expect(parsed.result.found.map((found) => found.url)).toEqual(['http://site/a']);
      expect(parsed.body.equals(copy)).toBe(true);
      expect(parsed.sha256.equals(sha256(copy))).toBe(true);
      expect(parsed.sha1.equals(createHash('sha1').update(copy).digest())).toBe(true);
    }
  } finally {
    await pool.close();
  }
});

it('copies a small body cut from a shared buffer instead of moving it, so its neighbours stay readable', async () => {
  const pool = new ParsePool(1);
  try {
    await pool.started();
    // Node cuts small Buffers out of one shared 8 KB buffer; moving that buffer would empty them all.
    const small = Buffer.from('<a href="/b">b</a>');
    const neighbour = Buffer.from('still here');
    expect(small.buffer).toBe(neighbour.buffer);
    const parsed = await pool.parse({ claim, contentType: 'text/html', body: small }, settings);
    expect(parsed.result.found.map((found) => found.url)).toEqual(['http://site/b']);
    expect(small.toString()).toBe('<a href="/b">b</a>');
    expect(neighbour.toString()).toBe('still here');
  } finally {
    await pool.close();
  }
  expect(parseThreadsRunning()).toBe(0);
});

it('ends a thread holding responses by itself on close, never terminating it mid-parse (where a --compact body is deflated)', async () => {
  const { made: pool, exits } = await threadsOf(
    () => new ParsePool(1),
    (made) => made.started(),
  );
  expect(exits).toHaveLength(1);
  const compact = { ...settings, compact: true };
  const page = (i: number) => ({ claim, contentType: 'text/html', body: Buffer.from(`<p>${String(i).repeat(2_000)}</p>`) });
  await pool.parse(page(0), compact);
  // 2,000 responses in its hands, then the close in the same turn.
  for (let i = 1; i <= 2_000; i += 1) pool.parse(page(i), compact).catch(() => undefined);
  await pool.close();
  // A terminated thread exits with 1; one that ended by itself, with 0.
  expect(await exits[0]).toBe(0);
  expect(parseThreadsRunning()).toBe(0);
});

it('a crawl parses on its own threads and ends them when it ends; the archive keeps every body under its SHA-256', async () => {
  expect(parseThreadsRunning()).toBe(0);
  const { result, most } = await mostDuring(
    () => runCli(['crawl', server.url, '--db', tmp.path('threads.sqlite'), '-c', '4', '-q']),
    parseThreadsRunning,
  );
  expect(result.code).toBe(0);
  expect(most).toBeGreaterThanOrEqual(1);
  await waitFor('the parse threads to end', () => parseThreadsRunning() === 0, 20_000);
  const bodies = readArchive<{ hash: Buffer; data: Buffer }>(tmp.path('threads.sqlite'), 'SELECT hash, data FROM body');
  expect(bodies.length).toBeGreaterThanOrEqual(PAGES);
  for (const { hash, data } of bodies) expect(hash.equals(sha256(data))).toBe(true);
  const [{ n }] = readArchive<{ n: number }>(
    tmp.path('threads.sqlite'),
    "SELECT count(*) AS n FROM pages WHERE kind = 'page' AND status = 200",
  );
  expect(n).toBe(PAGES + 1);
});
