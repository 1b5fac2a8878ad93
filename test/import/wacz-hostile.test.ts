import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSha256, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { expectOneLine } from '../support/one-line-error.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';
import { buildZip, CENTRAL, EOCD, LOCAL, ZIP64_EOCD, type BuiltZip, type ZipItem } from '../support/zip-build.js';

// A WACZ is a ZIP from anyone: one that is hostile or lies about itself is refused whole, with one line on
// stderr, exit 1, no stack, and no archive written; the same WACZ made honestly imports.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const WARC = rawRecord('response', 'http://site.example/', '2024-01-02T03:04:05Z', httpResponse('text/html', '<title>home</title>home'));
const PAGES = '{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}\n{"url": "http://site.example/", "title": "home"}\n';
const honest = (warc: Partial<ZipItem> = {}): ZipItem[] => [
  { name: 'archive/data.warc', data: WARC, ...warc },
  { name: 'pages/pages.jsonl', data: PAGES, method: 8 },
];

let made = 0;
function file(bytes: Buffer | BuiltZip, name = 'crawl.wacz'): string {
  const path = tmp.path(`${made++}-${name}`);
  writeFileSync(path, Buffer.isBuffer(bytes) ? bytes : bytes.bytes);
  return path;
}

/** Sets a 32-bit field of the built ZIP to a lie. */
function lie(zip: BuiltZip, at: number, value: number): BuiltZip {
  zip.bytes.writeUInt32LE(value, at);
  return zip;
}

async function refused(path: string, phrase: RegExp): Promise<void> {
  const db = tmp.path(`${made++}.sqlite`);
  const result = await execCli(['import', path, '--db', db]);
  expectOneLine(result, phrase);
  expect(existsSync(db), 'no archive is created').toBe(false);
}

it('imports the honest WACZ these are made from', async () => {
  const db = tmp.path('honest.sqlite');
  const result = await execCli(['import', file(buildZip(honest())), '--db', db, '-q']);
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(existsSync(db)).toBe(true);
});

it('refuses a file named .wacz that is no ZIP', async () => {
  await refused(file(Buffer.from('WARC/1.1\r\nthis is no zip\r\n')), /not a ZIP file/);
});

describe('zip bombs', () => {
  it('refuses an entry that would inflate a thousand-fold', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    await refused(file(buildZip([{ name: 'archive/data.warc', data: zeros, method: 8 }])), /would inflate \d+-fold.*zip bomb/);
  });

  it('refuses an entry that declares a few bytes and inflates to megabytes', async () => {
    const big = Buffer.concat([WARC, Buffer.alloc(4 * 1024 * 1024, 'a')]);
    const zip = buildZip([{ name: 'archive/data.warc', data: big, method: 8 }]);
    lie(zip, zip.entries[0]!.local + LOCAL.size, WARC.byteLength);
    lie(zip, zip.entries[0]!.central + CENTRAL.size, WARC.byteLength);
    await refused(file(zip), /inflates past the \d+ bytes it declares/);
  });

  it('refuses a page list that declares a few bytes and inflates to megabytes', async () => {
    const zip = buildZip([
      { name: 'archive/data.warc', data: WARC },
      { name: 'pages/pages.jsonl', data: PAGES.repeat(50_000), method: 8 },
    ]);
    lie(zip, zip.entries[1]!.local + LOCAL.size, PAGES.length);
    lie(zip, zip.entries[1]!.central + CENTRAL.size, PAGES.length);
    await refused(file(zip), /pages\.jsonl.*inflates past/);
  });
});

describe('names that reach outside', () => {
  for (const [label, name] of [
    ['a ../ segment', 'archive/../../etc/data.warc'],
    ['an absolute path', '/archive/data.warc'],
    ['a drive letter', 'C:/archive/data.warc'],
    ['a backslash', 'archive\\..\\data.warc'],
    ['a NUL byte', Buffer.from('archive/data.warc\0.txt', 'latin1')],
  ] as const)
    it(`refuses a name with ${label}`, async () => {
      await refused(
        file(buildZip([...honest(), { name, data: 'x' }])),
        /has (a `\.\.` segment|an absolute path|a backslash|a NUL byte) in its name/,
      );
    });

  it('refuses two entries of one name', async () => {
    await refused(file(buildZip([...honest(), { name: 'archive/data.warc', data: WARC }])), /two entries named "archive\/data\.warc"/);
  });
});

describe('lying sizes', () => {
  it('refuses a local header that says other sizes than the directory', async () => {
    const zip = buildZip(honest());
    await refused(
      file(lie(zip, zip.entries[0]!.local + LOCAL.compressedSize, 10)),
      /in its local header .* in the directory \(lying sizes\)/,
    );
  });

  it('refuses an entry whose size runs past the end of the file', async () => {
    const zip = buildZip(honest());
    lie(zip, zip.entries[0]!.local + LOCAL.compressedSize, 10_000_000);
    lie(zip, zip.entries[0]!.local + LOCAL.size, 10_000_000);
    lie(zip, zip.entries[0]!.central + CENTRAL.compressedSize, 10_000_000);
    await refused(file(lie(zip, zip.entries[0]!.central + CENTRAL.size, 10_000_000)), /past the end of the entries \(lying sizes\)/);
  });

  it('refuses a central directory that lies past the end of the file', async () => {
    const zip = buildZip(honest());
    await refused(file(lie(zip, zip.eocd + EOCD.offset, zip.bytes.byteLength)), /central directory lies past the end/);
  });

  it('refuses entries that overlap', async () => {
    const zip = buildZip([
      { name: 'archive/a.warc', data: WARC },
      { name: 'archive/b.warc', data: WARC },
    ]);
    // The first entry grows over the second, as in a bomb made of overlapping entries.
    const grown = zip.entries[1]!.data + WARC.byteLength - zip.entries[0]!.data;
    for (const at of [LOCAL.compressedSize, LOCAL.size]) lie(zip, zip.entries[0]!.local + at, grown);
    for (const at of [CENTRAL.compressedSize, CENTRAL.size]) lie(zip, zip.entries[0]!.central + at, grown);
    await refused(file(zip), /entries "archive\/a\.warc" and "archive\/b\.warc" overlap/);
  });

  it('refuses a stored entry whose two sizes differ', async () => {
    const zip = buildZip(honest());
    lie(zip, zip.entries[0]!.local + LOCAL.size, WARC.byteLength * 2);
    await refused(file(lie(zip, zip.entries[0]!.central + CENTRAL.size, WARC.byteLength * 2)), /stored entry .* \(lying sizes\)/);
  });

  it('refuses a deflated WARC that inflates to fewer bytes than it declares', async () => {
    const zip = buildZip(honest({ method: 8 }));
    lie(zip, zip.entries[0]!.local + LOCAL.size, WARC.byteLength + 100);
    await refused(file(lie(zip, zip.entries[0]!.central + CENTRAL.size, WARC.byteLength + 100)), /holds \d+ of the \d+ bytes it declares/);
  });
});

it('refuses a ZIP of too many entries', async () => {
  const items: ZipItem[] = Array.from({ length: 10_001 }, (_, i) => ({ name: `indexes/${i}`, data: '' }));
  await refused(file(buildZip([...honest(), ...items])), /too many entries \(10003; at most 10000\)/);
});

describe('zip64 fields that lie', () => {
  it('imports a zip64 WACZ that tells the truth', async () => {
    const db = tmp.path('zip64.sqlite');
    const result = await execCli(['import', file(buildZip(honest(), { zip64: true })), '--db', db, '-q']);
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses a zip64 end record whose directory lies past the file', async () => {
    const zip = buildZip(honest(), { zip64: true });
    zip.bytes.writeBigUInt64LE(2n ** 40n, zip.zip64Eocd! + ZIP64_EOCD.offset);
    await refused(file(zip), /central directory lies past the end/);
  });

  it('refuses a zip64 locator that points at no zip64 end record', async () => {
    const zip = buildZip(honest(), { zip64: true });
    zip.bytes.writeBigUInt64LE(0n, zip.zip64Locator! + 8);
    await refused(file(zip), /lying zip64 fields/);
  });

  it('refuses an entry whose 32-bit sizes are full and that has no zip64 field to give them', async () => {
    const zip = buildZip(honest());
    await refused(file(lie(zip, zip.entries[0]!.central + CENTRAL.size, 0xffffffff)), /no zip64 field to give them \(lying zip64 fields\)/);
  });
});

it('refuses an encrypted entry', async () => {
  await refused(file(buildZip(honest({ flags: 1 }))), /entry "archive\/data\.warc" is encrypted/);
});

it('refuses a WACZ with no WARC in its archive/ folder', async () => {
  await refused(file(buildZip([{ name: 'pages/pages.jsonl', data: PAGES }])), /no WARC in its archive\/ folder/);
});

it('leaves an existing archive byte for byte as it was, a WARC named beside the WACZ included', async () => {
  const db = tmp.path('existing.sqlite');
  const warc = tmp.path('plain.warc');
  writeFileSync(warc, WARC);
  expect((await execCli(['import', warc, '--db', db, '-q'])).code).toBe(0);
  const before = fileSha256(db);
  const damaged = buildZip(honest({ method: 8 }));
  lie(damaged, damaged.entries[0]!.local + LOCAL.crc, 1);
  lie(damaged, damaged.entries[0]!.central + CENTRAL.crc, 1);
  const result = await execCli(['import', warc, file(damaged), '--db', db]);
  expectOneLine(result, /entry "archive\/data\.warc" fails its CRC-32 check/);
  expect(fileSha256(db)).toBe(before);
});
