import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { WARCRecord, WARCSerializer } from 'warcio';
import { readArchive, tempDir } from './support/archive.js';
import { execCli } from './support/cli.js';
import { mulberry32 } from './support/prng.js';

// A damaged stretch of a WARC loses the records in it and no others: a gzip member that does not inflate is
// named by its own offset and reading goes on at the next member that does; junk between plain records is
// passed over up to the next `WARC/1.x` line.

const url = (i: number) => `http://site.example/${i}`;
const record = (i: number, body: Uint8Array = new TextEncoder().encode(`body ${i} `.repeat(40))) =>
  WARCRecord.create({ url: url(i), date: '2024-01-02T03:04:05Z', type: 'response', httpHeaders: { 'Content-Type': 'text/plain' } }, [body]);
const serialize = async (rec: WARCRecord) => Buffer.from(await WARCSerializer.serialize(rec));
/** One gzip member per record, as WARC writers make them (zlib's gzip is quicker here than warcio's own). */
const members = (n: number): Promise<Buffer[]> =>
  Promise.all(Array.from({ length: n }, async (_, i) => gzipSync(await serialize(record(i)))));
const offsetOf = (parts: Buffer[], index: number) => parts.slice(0, index).reduce((sum, part) => sum + part.length, 0);

/** Flips bytes in the middle of a member's deflate data, its 10-byte header left whole. */
function corruptDeflate(member: Buffer, at = Math.floor(member.length / 2)): Buffer {
  const damaged = Buffer.from(member);
  for (let k = 0; k < 4; k++) damaged[at + k]! ^= 0x5a;
  return damaged;
}

const pagesOf = (db: string) => readArchive<{ url: string }>(db, 'SELECT url FROM pages ORDER BY url').map((row) => row.url);
const urlsBut = (n: number, ...lost: number[]) =>
  Array.from({ length: n }, (_, i) => i)
    .filter((i) => !lost.includes(i))
    .map(url)
    .sort();

describe('crawlite import of damaged WARCs', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  async function importFile(name: string, data: Buffer) {
    const file = tmp.path(name);
    writeFileSync(file, data);
    const db = tmp.path(`${name}.sqlite`);
    const result = await execCli(['import', file, '--db', db, '-q']);
    return { file, db, ...result, lines: result.stderr.trim().split('\n') };
  }

  it('a small .warc.gz with one corrupt member: the member is named by its offset, every other record is imported', async () => {
    const parts = await members(5);
    parts[2] = corruptDeflate(parts[2]!);
    const { file, db, code, lines, stderr } = await importFile('small.warc.gz', Buffer.concat(parts));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 2)}: a gzip member that does not inflate .*offset ${offsetOf(parts, 3)}$`),
      ),
    ]);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(pagesOf(db)).toEqual(urlsBut(5, 2));
  });

  it('2,000 members with one corrupt in the middle: 1,999 records imported, the corrupt member named', async () => {
    const parts = await members(2000);
    parts[1000] = corruptDeflate(parts[1000]!);
    const { file, db, code, lines } = await importFile('large.warc.gz', Buffer.concat(parts));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 1000)}: a gzip member that does not inflate`)),
    ]);
    expect(readArchive(db, 'SELECT count(*) AS n FROM pages')).toEqual([{ n: 1999 }]);
    expect(pagesOf(db)).toEqual(urlsBut(2000, 1000));
    expect(readArchive(db, 'SELECT ended_by FROM run')).toEqual([{ ended_by: 'finished' }]);
  });

  it('a member whose data inflates but whose CRC-32 or length is wrong is damaged; a header with a name, comment and extra field is read', async () => {
    const parts = await members(6);
    // The trailer's CRC-32, then its length (ISIZE), each one bit off: the deflate data itself is whole.
    parts[1] = Buffer.from(parts[1]!);
    parts[1][parts[1].length - 8]! ^= 0x01;
    parts[3] = Buffer.from(parts[3]!);
    parts[3][parts[3].length - 4]! ^= 0x01;
    // FEXTRA, FNAME and FCOMMENT (flags 0x1c), as some writers make them: the same member otherwise.
    const plain = parts[4]!;
    const extra = Buffer.from([4, 0, 1, 2, 3, 4]);
    const header = Buffer.concat([
      Buffer.from([0x1f, 0x8b, 8, 0x1c]),
      plain.subarray(4, 10),
      extra,
      Buffer.from('record-4.warc\0comment\0', 'latin1'),
    ]);
    parts[4] = Buffer.concat([header, plain.subarray(10)]);
    const { file, db, code, lines } = await importFile('trailer.warc.gz', Buffer.concat(parts));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 1)}: a gzip member that does not inflate \\(incorrect data check\\)`),
      ),
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 3)}: a gzip member that does not inflate \\(incorrect length check\\)`),
      ),
    ]);
    expect(pagesOf(db)).toEqual(urlsBut(6, 1, 3));
    expect(
      readArchive<{ n: number }>(
        db,
        'SELECT count(*) AS n FROM captures WHERE url = ? AND body = ?',
        url(4),
        Buffer.from(`body 4 `.repeat(40)),
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('a member whose gzip header is damaged, and the first member damaged: the others are imported', async () => {
    const parts = await members(4);
    // Reserved flag bits set: no gzip reader takes the member.
    parts[0] = Buffer.from(parts[0]!);
    parts[0][3] = 0xe0;
    parts[2] = Buffer.from(parts[2]!);
    parts[2][2] = 0x07;
    const { file, db, code, lines } = await importFile('header.warc.gz', Buffer.concat(parts));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^crawlite: ${file}: offset 0: a gzip member that does not inflate \\(.*header.*\\)`)),
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 2)}: a gzip member that does not inflate \\(.*(method|header).*\\)`),
      ),
    ]);
    expect(pagesOf(db)).toEqual(urlsBut(4, 0, 2));
  });

  it('gzip magic inside the corrupt member is no member of the file: a false start is passed over', async () => {
    const random = mulberry32(19);
    const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
    // An intact gzip member that holds no WARC record, and a gzip header followed by noise.
    const notWarc = gzipSync('just some text, no record\n');
    const fakeHeader = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
    const payload = Buffer.concat([noise(3000), notWarc, noise(1500), fakeHeader, noise(1500), notWarc, noise(500)]);
    const parts = await members(4);
    // Stored, not compressed: both false starts are among the member's compressed bytes, as noise would leave them.
    parts[1] = gzipSync(await serialize(record(1, payload)), { level: 0 });
    expect(parts[1]!.indexOf(notWarc)).toBeGreaterThan(0);
    expect(parts[1]!.indexOf(fakeHeader)).toBeGreaterThan(0);
    parts[1] = corruptDeflate(parts[1]!, 40);
    const { file, db, code, lines } = await importFile('false-start.warc.gz', Buffer.concat(parts));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 1)}: a gzip member that does not inflate .*offset ${offsetOf(parts, 2)}$`),
      ),
    ]);
    expect(pagesOf(db)).toEqual(urlsBut(4, 1));
  });

  it('after a damaged member, a stretch crafted full of false gzip starts is given up on, not searched for ever', async () => {
    const parts = await members(3);
    parts[1] = Buffer.from(parts[1]!);
    parts[1][3] = 0xe0;
    // Every 16 bytes a gzip header whose file name never ends: each would read on for as long as it is let.
    const falseStart = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x08]), Buffer.alloc(12, 0x41)]);
    const crafted = Buffer.concat(Array.from({ length: (2 * 1024 * 1024) / falseStart.length }, () => falseStart));
    const { file, db, code, lines } = await importFile('false-starts.warc.gz', Buffer.concat([parts[0]!, parts[1], crafted, parts[2]!]));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^crawlite: ${file}: offset ${offsetOf(parts, 1)}: a gzip member that does not inflate .*too many gzip headers`),
      ),
    ]);
    expect(pagesOf(db)).toEqual([url(0)]);
  });

  it('a plain .warc with junk between records: each stretch named by its offset, every record imported', async () => {
    const parts = await Promise.all([0, 1, 2, 3].map((i) => serialize(record(i))));
    const junkWithBreak = Buffer.from('\x00\x01garbage\xff\nmore garbage\r\n');
    const junkGlued = Buffer.from([0x9c, 0x00, 0x41, 0xfe, 0x1f, 0x8b]);
    const data = [parts[0]!, junkWithBreak, parts[1]!, parts[2]!, junkGlued, parts[3]!];
    const { file, db, code, lines } = await importFile('junk.warc', Buffer.concat(data));
    expect(code).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^crawlite: ${file}: offset ${offsetOf(data, 1)}: not a WARC record .*skipped to the next record$`)),
      expect.stringMatching(new RegExp(`^crawlite: ${file}: offset ${offsetOf(data, 4)}: not a WARC record .*skipped to the next record$`)),
    ]);
    expect(pagesOf(db)).toEqual(urlsBut(4));
  });
});
