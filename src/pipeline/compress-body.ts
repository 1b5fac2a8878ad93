import { deflateSync } from 'node:zlib';

/**
 * zlib levels for stored bodies. On the Python docs archive's 52.8 MB of bodies: level 1 gives 10.5 MB for
 * 0.34 s of CPU, level 6 8.41 MB for 1.2 s, level 9 8.30 MB for 2.4 s. A crawl compresses on its parse
 * thread, which bounds its pages/s on 2 cores: 5,000 synthetic pages at -c 16 ran at 0.71 of a plain crawl's
 * pages/s with level 6 and 0.92 with level 1 (the archive 115 MB vs 118 MB: text and its index dominate).
 * `crawlite compact` runs offline and takes level 9: on the same bodies 8.29 MB against level 6's 8.38 MB, for
 * 1.27 s of CPU against 0.70 s (measured again with the other work of compact: the docs archive in 1.7 s).
 * Text stays at 6 there (level 9 saved 4 KB of its 3.3 MB).
 */
export const CRAWL_ZLIB_LEVEL = 1;
export const COMPACT_ZLIB_LEVEL = 9;
/** The level `crawlite compact` deflates page text with. */
export const COMPACT_TEXT_LEVEL = 6;

/** Compression that saves less than this share of the bytes is not worth a decompression on every read. */
const LEAST_SAVING = 0.1;

/** Leading bytes of formats that are compressed already: deflating them again saves nothing. */
const COMPRESSED_MAGIC: readonly number[][] = [
  [0x1f, 0x8b], // gzip
  [0x50, 0x4b, 0x03, 0x04], // zip, docx, epub, jar
  [0xff, 0xd8, 0xff], // JPEG
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x52, 0x49, 0x46, 0x46], // RIFF: WebP, WAV, AVI
  [0x77, 0x4f, 0x46, 0x46], // wOFF
  [0x77, 0x4f, 0x46, 0x32], // wOF2
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0x42, 0x5a, 0x68], // bzip2
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x1a, 0x45, 0xdf, 0xa3], // Matroska, WebM
  [0x4f, 0x67, 0x67, 0x53], // Ogg
];

const startsWith = (bytes: Uint8Array, magic: readonly number[]) =>
  bytes.byteLength >= magic.length && magic.every((byte, i) => bytes[i] === byte);

/** ISO media (MP4, AVIF, HEIC, MOV): 'ftyp' at offset 4. */
const isIsoMedia = (bytes: Uint8Array) =>
  bytes.byteLength >= 8 && bytes[4] === 0x66 && bytes[5] === 0x74 && bytes[6] === 0x79 && bytes[7] === 0x70;

/** Whether the bytes look like a format that is compressed already (by their first bytes, not by what a server calls them). */
export function looksCompressed(bytes: Uint8Array): boolean {
  return isIsoMedia(bytes) || COMPRESSED_MAGIC.some((magic) => startsWith(bytes, magic));
}

/**
 * The bytes to store for a body, in SQLite's sqlar convention: a zlib stream (RFC 1950) when that is
 * smaller than the body by at least a tenth, else the body itself. A reader tells them apart by
 * length(data) < size, so a stored stream is always shorter than the body.
 */
export function compressBody(body: Uint8Array, level = CRAWL_ZLIB_LEVEL): Uint8Array {
  if (body.byteLength === 0 || looksCompressed(body)) return body;
  const packed = deflateSync(body, { level });
  return packed.byteLength <= body.byteLength * (1 - LEAST_SAVING) ? packed : body;
}
