import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { memoryKb } from '../support/process-tree.js';
import { get, startServe } from '../support/serve.js';
import { textArchive } from '../support/text-archive.js';

// A statement can return one cell of hundreds of megabytes. serve shows a page of it and streams a
// download of it within a memory bound of its own, whatever the cell: the page shows the cell cut,
// with its size; the download is made in pieces in the query's process. Memory is serve's peak
// (VmHWM of the real serve process, read from outside), against its own peak before the query.

const tmp = tempDir();
let db: string;
const MB = 1024 * 1024;
/** What serve's peak may grow by for a cell of any size: a few pieces in flight, and V8's slack. Before, it grew by the cell's size several times over. */
const BOUND_MB = 120;

beforeAll(() => {
  db = textArchive(tmp.path('huge.sqlite'), 5);
});

afterAll(() => tmp.cleanup());

/** Streams a response, keeping only its size and its first and last bytes. */
function download(base: string, path: string): Promise<{ status: number; bytes: number; head: string; tail: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, agent: false }, (res) => {
      let bytes = 0;
      let head = '';
      let tail = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (head.length < 64) head += chunk.subarray(0, 64 - head.length).toString('latin1');
        bytes += chunk.length;
        tail = Buffer.concat([tail, chunk]).subarray(-64);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head, tail: tail.toString('latin1') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a huge cell on the SQL page', () => {
  it("is shown cut, with its size, and its page and its download leave serve's peak memory within a bound", async () => {
    // Seconds of SQLite and copying in the query's process on a loaded machine: its limit is roomy.
    const serve = await startServe(db, ['--search-timeout', '60000']);
    try {
      // Serve's own peak once it has answered a query, before any huge cell.
      expect((await get(serve.ui, `/sql?sql=${encodeURIComponent('select 1')}`)).status).toBe(200);
      const before = memoryKb(serve.pid, 'VmHWM')! * 1024;

      const page = await get(serve.ui, `/sql?sql=${encodeURIComponent('select randomblob(300000000) as b, hex(zeroblob(50000000)) as t')}`);
      const afterPage = memoryKb(serve.pid, 'VmHWM')! * 1024;
      const blob = 200_000_000;
      const json = await download(serve.ui, `/sql.json?sql=${encodeURIComponent(`select randomblob(${blob}) as b`)}`);
      const csv = await download(
        serve.ui,
        `/sql.csv?sql=${encodeURIComponent("select 1 as n, replace(hex(zeroblob(60000000)), '00', 'a\"') as t")}`,
      );
      const afterDownloads = memoryKb(serve.pid, 'VmHWM')! * 1024;
      const grew = { page: Math.round((afterPage - before) / MB), downloads: Math.round((afterDownloads - afterPage) / MB) };
      console.log(
        `serve's peak RSS: ${Math.round(before / MB)} MB before, +${grew.page} MB for the page, +${grew.downloads} MB for the downloads`,
      );

      expect(page.status).toBe(200);
      expect(page.body).toContain('<td class="blob">&lt;300,000,000 bytes&gt;</td>');
      expect(page.body).toMatch(
        /<td>0{1000}… <span class="cut">\(cut: 100,000,000 bytes in all; the downloads have it whole\)<\/span><\/td>/,
      );
      const base64 = Math.ceil(blob / 3) * 4;
      expect([json.status, json.bytes, json.head.slice(0, 8), json.tail.slice(-5)]).toEqual([
        200,
        '[\n{"b":"'.length + base64 + '"}\n]\n'.length,
        '[\n{"b":"',
        '"}\n]\n',
      ]);
      // Each of the 60 million `a"` doubled its quote, in a quoted field.
      expect([csv.status, csv.bytes, csv.head.slice(0, 9), csv.tail.slice(-5)]).toEqual([
        200,
        'n,t\r\n1,"'.length + 60_000_000 * 3 + '"\r\n'.length,
        'n,t\r\n1,"a',
        '"""\r\n',
      ]);
      expect(grew.page).toBeLessThan(BOUND_MB);
      expect(grew.downloads).toBeLessThan(BOUND_MB);
    } finally {
      await serve.stop();
    }
  }, 240_000);
});
