import { inflateSync } from 'node:zlib';
import { CrawliteError } from '../../crawlite-error.js';

/** A stored body that does not unpack to its recorded size: the file was damaged or written by something else. */
export class DamagedBodyError extends CrawliteError {
  constructor(detail: string) {
    super(
      'DAMAGED_BODY',
      `a stored body cannot be read (${detail}): the archive is damaged; restore it from a copy or export what is readable`,
    );
  }
}

/**
 * The body's bytes from a body row (the sqlar convention): `data` holds a zlib stream exactly when it is
 * shorter than `size`, else the bytes themselves. Every reader of bodies goes through here.
 */
export function bodyBytes(data: Buffer, size: number): Buffer {
  if (data.byteLength >= size) return data;
  let raw: Buffer;
  try {
    // Never more than the recorded size: a hostile stream cannot unpack into gigabytes.
    raw = inflateSync(data, { maxOutputLength: Math.max(size, 1) });
  } catch (error) {
    throw new DamagedBodyError(error instanceof Error ? error.message : String(error));
  }
  if (raw.byteLength !== size) throw new DamagedBodyError(`${raw.byteLength} bytes unpacked, ${size} recorded`);
  return raw;
}

/**
 * `sqlar_uncompress(data, sz)` as the sqlite3 shell defines it (ext/misc/sqlar.c): the value as it is when
 * sz <= 0 or sz equals its length, else the inflated bytes. Registered on query connections so the same SQL
 * runs in `crawlite query` and in the shell.
 */
export function sqlarUncompress(data: unknown, size: unknown): unknown {
  if (data === null || data === undefined) return null;
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(String(data));
  const sz = typeof size === 'bigint' ? Number(size) : Number(size);
  if (!(sz > 0) || sz === bytes.byteLength) return data;
  try {
    return inflateSync(bytes);
  } catch {
    throw new Error('error in uncompress()');
  }
}
