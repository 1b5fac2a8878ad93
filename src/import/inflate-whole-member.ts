import { crc32, inflateRawSync } from 'node:zlib';

/** Output of one member inflated at once, at most; a larger one is streamed. */
const MAX_OUTPUT = 8 * 1024 * 1024;

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const RESERVED = 0xe0;

/** Where a gzip member's deflate data starts in `bytes` (RFC 1952), or undefined if its header is not all there or is not one. */
function deflateStart(bytes: Buffer): number | undefined {
  if (bytes.byteLength < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) return undefined;
  const flags = bytes[3]!;
  if (flags & RESERVED) return undefined;
  let at = 10;
  if (flags & FEXTRA) {
    if (at + 2 > bytes.byteLength) return undefined;
    at += 2 + bytes.readUInt16LE(at);
  }
  for (const field of [FNAME, FCOMMENT]) {
    if (!(flags & field)) continue;
    const end = bytes.indexOf(0, at);
    if (end < 0) return undefined;
    at = end + 1;
  }
  if (flags & FHCRC) at += 2;
  return at <= bytes.byteLength ? at : undefined;
}

/**
 * The gzip member at the start of `bytes`, inflated by zlib itself in one
 * call, with its compressed length: or undefined when the member does not
 * end within `bytes`, would inflate to more than 8 MiB, or is damaged in
 * any way (its data, its CRC-32 or its length), so that the caller streams
 * it and reports what is wrong as it always has. Most records of a
 * .warc.gz are small members, and zlib inflates them several times faster
 * than a JavaScript inflater.
 */
export function inflateWholeMember(bytes: Buffer): { bytes: Buffer; length: number } | undefined {
  const start = deflateStart(bytes);
  if (start === undefined) return undefined;
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    inflated = inflateRawSync(bytes.subarray(start), { info: true, maxOutputLength: MAX_OUTPUT }) as unknown as typeof inflated;
  } catch {
    return undefined;
  }
  const trailer = start + inflated.engine.bytesWritten;
  if (trailer + 8 > bytes.byteLength) return undefined;
  const output = inflated.buffer;
  if (bytes.readUInt32LE(trailer) !== crc32(output) || bytes.readUInt32LE(trailer + 4) !== output.byteLength % 2 ** 32) return undefined;
  return { bytes: output, length: trailer + 8 };
}
