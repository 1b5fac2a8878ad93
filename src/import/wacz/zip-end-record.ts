import type { FileHandle } from 'node:fs/promises';

// The records at a ZIP's end: where its central directory lies and how many entries it holds, from the end
// record or, for a ZIP over 4 GiB or 65,535 entries, the zip64 end record its locator points at. Both are
// checked against each other and against the file.

/** Entries at most: a WACZ holds a few WARCs, indexes and page lists. */
const MAX_ENTRIES = 10_000;
/** Central directory bytes at most. */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;
/** The end record, and the comment after it that may be up to 64 KiB. */
const EOCD_BYTES = 22;
const EOCD_SEARCH = EOCD_BYTES + 0xffff;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_EOCD_BYTES = 56;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_ZIP64_EOCD = 0x06064b50;

/** A 16- or 32-bit field this full says the zip64 records hold its value. */
export const U16 = 0xffff;
export const U32 = 0xffffffff;

/** Bytes of the file from `at`, fewer at its end. */
export async function readAt(file: FileHandle, at: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, at);
  return buffer.subarray(0, bytesRead);
}

/** A safe 64-bit little-endian number: larger than any file is a lie. */
export function readU64(bytes: Buffer, at: number): number {
  const value = bytes.readBigUInt64LE(at);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** What the ZIP says at its end: how many entries, and where its central directory lies. */
export interface Directory {
  entries: number;
  offset: number;
  size: number;
  /** Where the records at the end begin: the directory must end before them. */
  end: number;
}

/** Finds and checks the end records; refuses a ZIP that has none, spans disks, or lies in them. */
export async function findDirectory(file: FileHandle, size: number, refuse: (reason: string) => never): Promise<Directory> {
  const tailStart = Math.max(0, size - EOCD_SEARCH);
  const tail = await readAt(file, tailStart, size - tailStart);
  let at = -1;
  // The last end record whose comment reaches exactly to the end of the file.
  for (let i = tail.byteLength - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) === SIG_EOCD && i + EOCD_BYTES + tail.readUInt16LE(i + 20) === tail.byteLength) {
      at = i;
      break;
    }
  }
  if (at < 0) refuse('not a ZIP file (no end of central directory)');
  const eocd = tail.subarray(at, at + EOCD_BYTES);
  const eocdOffset = tailStart + at;
  if (eocd.readUInt16LE(4) !== 0 || eocd.readUInt16LE(6) !== 0) refuse('a ZIP split over several disks');
  let directory: Directory = {
    entries: eocd.readUInt16LE(10),
    size: eocd.readUInt32LE(12),
    offset: eocd.readUInt32LE(16),
    end: eocdOffset,
  };
  if (eocd.readUInt16LE(8) !== directory.entries) refuse('a ZIP split over several disks');
  const locatorOffset = eocdOffset - ZIP64_LOCATOR_BYTES;
  const locator = locatorOffset >= 0 ? await readAt(file, locatorOffset, ZIP64_LOCATOR_BYTES) : undefined;
  if (locator?.byteLength === ZIP64_LOCATOR_BYTES && locator.readUInt32LE(0) === SIG_ZIP64_LOCATOR) {
    if (locator.readUInt32LE(4) !== 0 || locator.readUInt32LE(16) !== 1) refuse('a ZIP split over several disks');
    const recordOffset = readU64(locator, 8);
    if (recordOffset + ZIP64_EOCD_BYTES > locatorOffset) refuse('its zip64 end record lies past where it can be (lying zip64 fields)');
    const record = await readAt(file, recordOffset, ZIP64_EOCD_BYTES);
    if (record.readUInt32LE(0) !== SIG_ZIP64_EOCD) refuse('its zip64 locator points at no zip64 end record (lying zip64 fields)');
    if (record.readUInt32LE(16) !== 0 || record.readUInt32LE(20) !== 0) refuse('a ZIP split over several disks');
    const entries = readU64(record, 32);
    if (readU64(record, 24) !== entries) refuse('a ZIP split over several disks');
    // The zip64 record counts only where the 16- and 32-bit fields are full; elsewhere both must agree.
    const agrees = (short: number, full: number, long: number) => short === full || short === long;
    const zip64 = { entries, size: readU64(record, 40), offset: readU64(record, 48), end: recordOffset };
    if (
      !agrees(directory.entries, U16, zip64.entries) ||
      !agrees(directory.size, U32, zip64.size) ||
      !agrees(directory.offset, U32, zip64.offset)
    )
      refuse('its zip64 end record and its end record disagree (lying zip64 fields)');
    directory = zip64;
  }
  if (directory.entries > MAX_ENTRIES) refuse(`too many entries (${directory.entries}; at most ${MAX_ENTRIES})`);
  if (directory.size > MAX_DIRECTORY_BYTES) refuse(`a central directory of ${directory.size} bytes (at most ${MAX_DIRECTORY_BYTES})`);
  if (directory.offset + directory.size > directory.end)
    refuse('its central directory lies past the end of the file or over its end record (lying sizes)');
  return directory;
}
