import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, describe, it } from 'vitest';
import type { RowFormat } from '../src/cli/format-rows.js';
import { tempDir } from './support/archive.js';
import { BIN, execCli, runCli } from './support/cli.js';
import { killAll, memoryKb, watchPeakMemory } from './support/process-tree.js';
import { emptyArchive } from './support/query-archive.js';
import { sleep, waitFor } from './support/wait.js';

// `query` streams: 200 MB of rows go through with memory flat, in every
// format, and a reader that stops for a while does not make it buffer.
// Holding the result took 350 MB (table) to 1.1 GB (csv) for these rows.

const ROWS = 50_000;
const FILLER = '0'.repeat(4000);
const SQL = `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${ROWS}) select x, hex(zeroblob(${FILLER.length / 2})) as filler from c`;
/** Resident memory at most, per process (query, and the process running the statement): a node process is ~50 MB. */
const MAX_RSS_MB = 200;

const tmp = tempDir();
const db = emptyArchive(tmp.path('empty.sqlite'));
const children: ReturnType<typeof spawn>[] = [];

afterAll(() => {
  killAll(children);
  tmp.cleanup();
});

/** The exact output expected, row by row, for the SQL above. */
function* expected(format: RowFormat): Generator<string> {
  const numbers = function* () {
    for (let x = 1; x <= ROWS; x += 1) yield x;
  };
  switch (format) {
    case 'ndjson':
      for (const x of numbers()) yield `{"x":${x},"filler":"${FILLER}"}\n`;
      return;
    case 'csv':
      yield 'x,filler\r\n';
      for (const x of numbers()) yield `${x},${FILLER}\r\n`;
      return;
    case 'json':
      for (const x of numbers()) yield `${x === 1 ? '[\n' : ',\n'}  {\n    "x": ${x},\n    "filler": "${FILLER}"\n  }`;
      yield '\n]\n';
      return;
    case 'table':
      // Widths come from the first rows (x up to 4 digits); a longer x widens only its own row.
      yield `x     filler\n----  ${'-'.repeat(120)}\n`;
      for (const x of numbers()) yield `${String(x).padEnd(4)}  ${FILLER.slice(0, 120)}\n`;
      yield `(${ROWS} rows)\n`;
      return;
  }
}

const sha256 = (chunks: Iterable<string>) => {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
};

/** Runs `query`, hashing stdout as it comes (never holding it) and sampling the peak memory of it and its worker. */
async function streamQuery(format: RowFormat, pauseMs = 0) {
  const child = spawn(process.execPath, [BIN, 'query', db, SQL, '-f', format], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const memory = watchPeakMemory(child.pid!);
  const hash = createHash('sha256');
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let duringPause: { before: number; after: number } | undefined;
  if (pauseMs) {
    await waitFor(
      'the first rows',
      () => bytes > 0,
      60_000,
      () => stderr,
    );
    child.stdout.pause();
    await sleep(100);
    const before = memoryKb(child.pid!, 'VmRSS')!;
    await sleep(pauseMs);
    duringPause = { before, after: memoryKb(child.pid!, 'VmRSS')! };
    child.stdout.resume();
  }
  const code = await exited;
  const peaks = await memory.stop();
  const peakMb = Math.max(...peaks.values()) / 1024;
  return { code, stderr, bytes, sha256: hash.digest('hex'), peakMb, processes: peaks.size, duringPause };
}

/** Five queries of 200 MB at once, on two cores: about 30 s on a quiet machine (of the default 60 s); room for a loaded one. */
const STREAM_TEST_MS = 240_000;

describe.concurrent('query streams its rows', { timeout: STREAM_TEST_MS }, () => {
  for (const format of ['ndjson', 'csv', 'json', 'table'] as const) {
    it(`-f ${format}: ${ROWS} rows of 4 KB, the exact output, memory under ${MAX_RSS_MB} MB`, async ({ expect }) => {
      const run = await streamQuery(format);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.sha256).toBe(sha256(expected(format)));
      expect(run.processes).toBe(2);
      expect(run.peakMb, `peak ${run.peakMb.toFixed(0)} MB for ${run.bytes} bytes`).toBeLessThan(MAX_RSS_MB);
    });
  }

  it('a reader that stops for a while: query waits for it instead of buffering', async ({ expect }) => {
    const run = await streamQuery('ndjson', 1500);
    expect(run.code, run.stderr).toBe(0);
    expect(run.sha256).toBe(sha256(expected('ndjson')));
    const { before, after } = run.duringPause!;
    expect(after - before, `RSS ${before} kB then ${after} kB while the reader paused`).toBeLessThan(32 * 1024);
    expect(run.peakMb).toBeLessThan(MAX_RSS_MB);
  });
});

describe.concurrent('query output at the edges of streaming', () => {
  it('no rows: a header and (0 rows), [], a CSV header, nothing', async ({ expect }) => {
    const sql = 'select 1 as a, 2 as b where 0';
    const outputs = await Promise.all(
      (['table', 'json', 'csv', 'ndjson'] as const).map((format) => execCli(['query', db, sql, '-f', format])),
    );
    for (const run of outputs) expect(run.code, run.stderr).toBe(0);
    expect(outputs.map((run) => run.stdout)).toEqual(['a  b\n-  -\n(0 rows)\n', '[]\n', 'a,b\r\n', '']);
  });

  it('runs in-process too (main with captured output), through the compiled worker', async ({ expect }) => {
    const run = await runCli(['query', db, "select 1 as one, 'two' as two", '-f', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ one: 1, two: 'two' }]);
  });
});
