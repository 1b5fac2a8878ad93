import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { mulberry32 } from '../support/prng.js';

// An attacker's WARC or WACZ: real files (vendored, see test/fixtures/NOTICE) with bytes changed, cut,
// repeated and Content-Lengths rewritten, seeded so a failure is reproduced by its seed. Whatever the
// input, import answers with lines of its own (no stack trace), exits 0, 1 or 2, and leaves an archive
// that SQLite finds intact, with the pages an earlier import stored still there, unchanged.

const FIXTURES = ['warc/warcio-example-trunc.warc', 'warc/py-wacz-example-resource.warc.gz', 'wacz/py-wacz-valid-example-1.wacz'].map(
  (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)),
);
const SEED = Number(process.env.MUTATION_SEED ?? 20261128);
const CASES = 18;

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** One mutation of `input`: a byte changed, the file cut, digits inserted, a stretch repeated or removed, a Content-Length rewritten. */
function mutate(input: Buffer, rand: () => number): Buffer {
  const pick = (n: number) => Math.floor(rand() * n);
  const at = pick(input.byteLength || 1);
  switch (pick(6)) {
    case 0: {
      const out = Buffer.from(input);
      out[at] = pick(256);
      return out;
    }
    case 1:
      return input.subarray(0, at);
    case 2:
      return Buffer.concat([input.subarray(0, at), Buffer.from(String(pick(1e9))), input.subarray(at)]);
    case 3:
      return Buffer.concat([input.subarray(0, at), input.subarray(at, at + pick(300)), input.subarray(at)]);
    case 4:
      return Buffer.from(
        input.toString('latin1').replace(/Content-Length: \d+/, () => `Content-Length: ${pick(1e7)}`),
        'latin1',
      );
    default:
      return Buffer.concat([input.subarray(0, at), input.subarray(at + pick(500))]);
  }
}

/** A mutated copy of a fixture: a .warc.gz is mutated inside its gzip half the time, so records (not only members) break. */
function mutated(file: string, rand: () => number): { bytes: Buffer; ext: string } {
  let bytes: Buffer = readFileSync(file);
  const ext = file.endsWith('.wacz') ? '.wacz' : file.endsWith('.gz') ? '.warc.gz' : '.warc';
  const inside = ext === '.warc.gz' && rand() < 0.5;
  if (inside) bytes = gunzipSync(bytes);
  for (let count = 1 + Math.floor(rand() * 3); count > 0; count--) bytes = mutate(bytes, rand);
  return { bytes: inside ? gzipSync(bytes) : bytes, ext };
}

describe('import of mutated WARC and WACZ files', () => {
  it(`answers each with its own lines and leaves the archive intact, the pages stored before unchanged (seed ${SEED})`, async () => {
    const seeded = tmp.path('seeded.sqlite');
    const first = await execCli(['import', FIXTURES[0]!, '--db', seeded, '-q']);
    expect(first.code).toBeLessThanOrEqual(2);
    const before = readArchive<{ url: string; sha256: string }>(seeded, 'SELECT url, sha256 FROM pages ORDER BY url');
    expect(before.length).toBeGreaterThan(0);
    const rand = mulberry32(SEED);
    for (let index = 0; index < CASES; index++) {
      const { bytes, ext } = mutated(FIXTURES[index % FIXTURES.length]!, rand);
      const input = tmp.path(`mutated-${index}${ext}`);
      writeFileSync(input, bytes);
      const db = tmp.path(`archive-${index}.sqlite`);
      copyFileSync(seeded, db);
      const result = await execCli(['import', input, '--db', db, '-q']);
      const shown = `case ${index} (MUTATION_SEED=${SEED}): exit ${result.code}\n${result.stderr}`;
      expect([0, 1, 2], shown).toContain(result.code);
      for (const line of result.stderr.trimEnd().split('\n').filter(Boolean)) expect(line, shown).toMatch(/^crawlite: /);
      expect(readArchive(db, 'PRAGMA integrity_check'), shown).toEqual([{ integrity_check: 'ok' }]);
      const kept = readArchive<{ url: string; sha256: string }>(
        db,
        `SELECT url, sha256 FROM captures WHERE url IN (${before.map(() => '?').join(', ')}) ORDER BY url`,
        ...before.map((row) => row.url),
      );
      for (const page of before) expect(kept, shown).toContainEqual(page);
    }
  });
});
