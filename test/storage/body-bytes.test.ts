import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressBody } from '../../src/pipeline/compress-body.js';
import { bodyBytes } from '../../src/storage/archive/body-bytes.js';
import { sqlarUncompress } from '../../src/storage/archive/sqlar-functions.js';

// The stored form of a body (SQLite's sqlar convention) both ways: what a compact archive writes, and the one
// door every reader takes back to the bytes received.
const TEXT = Buffer.from('<p>words words words</p>\n'.repeat(400));

describe('compressBody', () => {
  it('deflates text into a zlib stream shorter than the body, which bodyBytes gives back', () => {
    const stored = Buffer.from(compressBody(TEXT));
    expect(stored.length).toBeLessThan(TEXT.length * 0.9);
    expect(stored[0]).toBe(0x78);
    expect(bodyBytes(stored, TEXT.length)).toEqual(TEXT);
  });

  it('keeps raw what is compressed already, does not shrink by a tenth, or is empty', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000)]);
    const gzip = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(5000)]);
    const noise = randomBytes(5000);
    for (const body of [png, gzip, noise, Buffer.alloc(0), Buffer.from('x')]) expect(compressBody(body)).toBe(body);
  });
});

describe('bodyBytes', () => {
  it('gives a raw body as it is (length(data) = size: every body of an archive made before)', () => {
    expect(bodyBytes(TEXT, TEXT.length)).toBe(TEXT);
  });

  it('refuses a stream that is damaged, or unpacks to more or fewer bytes than its size, with DAMAGED_BODY', () => {
    const stored = deflateSync(TEXT);
    expect(() => bodyBytes(stored.subarray(0, stored.length - 8), TEXT.length)).toThrow(expect.objectContaining({ code: 'DAMAGED_BODY' }));
    expect(() => bodyBytes(stored, TEXT.length + 1)).toThrow(expect.objectContaining({ code: 'DAMAGED_BODY' }));
    // A small stream of 64 MiB of zeros stops at the recorded size instead of unpacking it all.
    const bomb = deflateSync(Buffer.alloc(64 * 2 ** 20));
    expect(() => bodyBytes(bomb, bomb.length + 1000)).toThrow(expect.objectContaining({ code: 'DAMAGED_BODY' }));
  });
});

describe('sqlar_uncompress(data, sz), as the sqlite3 shell defines it', () => {
  it('returns the value as it is when sz <= 0 or sz is its length, the inflated bytes otherwise, NULL for NULL', () => {
    expect(sqlarUncompress(TEXT, TEXT.length)).toBe(TEXT);
    expect(sqlarUncompress(TEXT, 0)).toBe(TEXT);
    expect(sqlarUncompress(TEXT, -1)).toBe(TEXT);
    expect(sqlarUncompress(null, 10)).toBeNull();
    expect(sqlarUncompress(deflateSync(TEXT), BigInt(TEXT.length))).toEqual(TEXT);
    expect(() => sqlarUncompress(Buffer.from('not zlib at all'), 100)).toThrow('error in uncompress()');
  });
});
