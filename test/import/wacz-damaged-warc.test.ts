import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { mulberry32 } from '../support/prng.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';
import { buildZip } from '../support/zip-build.js';

// A damaged .warc.gz inside a WACZ is read as the same file outside it: stored or deflated in the ZIP, the
// same records are imported and the same damage is reported, at the same offsets in the WARC. The damaged
// member is over a megabyte, so the search for the next member reads far behind where reading stopped.

const tmp = tempDir();
const url = (i: number) => `http://site.example/${i}`;
const rand = mulberry32(7);
/** Letters drawn at random: they deflate to about five eighths of their size, so the member stays large. */
const noise = (length: number) => Array.from({ length }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
const member = (i: number, body = `body ${i}`) =>
  gzipSync(rawRecord('response', url(i), '2024-01-02T03:04:05Z', httpResponse('text/plain', body)));

let parts: Buffer[];
let warc: Buffer;
const offsetOf = (index: number) => parts.slice(0, index).reduce((sum, part) => sum + part.length, 0);

beforeAll(() => {
  parts = Array.from({ length: 40 }, (_, i) => member(i));
  parts[20] = member(20, noise(3 * 1024 * 1024));
  // Bytes flipped near the end of the large member: it fails only after more than a megabyte was inflated.
  const at = parts[20].length - 5000;
  for (let k = 0; k < 4; k++) parts[20][at + k]! ^= 0x5a;
  warc = Buffer.concat(parts);
});
afterAll(() => tmp.cleanup());

async function importOne(name: string, bytes: Buffer): Promise<{ file: string; code: number; stderr: string; urls: string[] }> {
  const file = tmp.path(name);
  writeFileSync(file, bytes);
  const db = tmp.path(`${name}.sqlite`);
  const result = await execCli(['import', file, '--db', db, '-q']);
  const urls = readArchive<{ url: string }>(db, 'SELECT url FROM pages ORDER BY url').map((row) => row.url);
  return { file, code: result.code, stderr: result.stderr, urls };
}

it('imports the records around a damaged member and names it by its offset in the WARC, stored or deflated in the WACZ', async () => {
  const plain = await importOne('crawl.warc.gz', warc);
  expect(plain.code).toBe(2);
  expect(plain.urls).toHaveLength(39);
  expect(plain.urls).not.toContain(url(20));
  const problem = `offset ${offsetOf(20)}: a gzip member that does not inflate (.*); skipped to the next intact member, at offset ${offsetOf(21)}`;
  expect(plain.stderr).toMatch(new RegExp(`^crawlite: ${plain.file}: ${problem}\\n$`));
  for (const method of [0, 8] as const) {
    const wacz = await importOne(`crawl-${method}.wacz`, buildZip([{ name: 'archive/crawl.warc.gz', data: warc, method }]).bytes);
    expect(wacz.code).toBe(2);
    expect(wacz.urls).toEqual(plain.urls);
    expect(wacz.stderr).toMatch(new RegExp(`^crawlite: ${wacz.file}#archive/crawl\\.warc\\.gz: ${problem}\\n$`));
  }
});
