import type { Database } from 'better-sqlite3';
import { deflateSync, inflateSync } from 'node:zlib';

// The two SQL functions of SQLite's sqlar convention, as the `sqlite3` shell defines them (ext/misc/sqlar.c),
// on every connection crawlite opens to an archive: a compact archive's views read compressed columns
// through sqlar_uncompress, so the same SQL runs in crawlite, in the shell, and in any client that defines
// the function (docs/archive.md shows Python's).

type Value = string | Buffer | number | bigint | null;

const bytesOf = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);

/**
 * zlib level 1 while crawling, where the shell's compress() uses 6: a page's text is compressed on the thread
 * that commits it, and level 6 doubled that thread's CPU for the text (0.23 to 0.49 ms per synthetic page)
 * where level 1 adds a third (0.31 ms), for 0.3% more bytes on the synthetic site and 11% more on the Python
 * docs. `crawlite compact` runs offline and takes 6 (the docs' text 3.74 MB -> 3.33 MB for 0.13 s more CPU).
 */
export const CRAWL_TEXT_LEVEL = 1;

/** sqlar_compress(X): X deflated as a zlib stream, or X itself when that is not smaller. */
export function sqlarCompress(value: Value, level = CRAWL_TEXT_LEVEL): Value {
  if (value === null || typeof value === 'number' || typeof value === 'bigint') return value;
  const raw = bytesOf(value);
  const packed = deflateSync(raw, { level });
  return packed.length < raw.length ? packed : value;
}

/** sqlar_uncompress(X, SZ): X inflated when it is shorter than SZ bytes, else X as stored. */
export function sqlarUncompress(value: Value, size: Value): Value {
  if (value === null || typeof value === 'number' || typeof value === 'bigint') return value;
  const length = typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
  if (size === null || !(Number(size) > 0) || length === Number(size)) return value;
  try {
    // Never more than SZ bytes, as the shell inflates into a buffer of SZ: a hostile value cannot unpack into gigabytes.
    return inflateSync(bytesOf(value), { maxOutputLength: Number(size) });
  } catch {
    // The shell's words for a value that does not inflate.
    throw new Error('error in uncompress()');
  }
}

/** `level`: the zlib level sqlar_compress writes with (CRAWL_TEXT_LEVEL unless given). */
export function registerSqlarFunctions(db: Database, level = CRAWL_TEXT_LEVEL): void {
  db.function('sqlar_compress', { deterministic: true }, (value: Value) => sqlarCompress(value, level));
  db.function('sqlar_uncompress', { deterministic: true }, (value: Value, size: Value) => sqlarUncompress(value, size));
}
