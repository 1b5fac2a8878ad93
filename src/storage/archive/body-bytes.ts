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
