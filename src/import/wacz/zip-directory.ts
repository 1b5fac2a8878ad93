import type { FileHandle } from 'node:fs/promises';
import { findDirectory, readAt, readU64, U16, U32, type Directory } from './zip-end-record.js';
import { WaczFileError } from './wacz-errors.js';

// A ZIP's central directory, read and checked before any entry is: every
// entry must lie whole inside the file, apart from every other, with the same
// name, method and sizes in its local header as in the directory. A ZIP that
// is not so is refused whole, since what it holds cannot be told apart from
// what it claims to hold.

/** One entry of the ZIP, as its central directory and local header agree it is. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated (others are refused when the entry is read). */
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Where the entry's local header starts, and its data. */
  headerOffset: number;
  dataOffset: number;
}

const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const ZIP64_EXTRA = 0x0001;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8 = 0x0800;
const METHOD_AES = 99;

/** Why an entry's name could write or read outside a folder: `../`, absolute, backslashes, drive letters, NUL. */
function unsafeName(name: string): string | undefined {
  if (name === '') return 'an empty name';
  if (name.includes('\0')) return 'a NUL byte';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((part) => part === '..')) return 'a `..` segment';
  return undefined;
}

const shown = (name: string) => JSON.stringify(name.replace(/\0/g, '\\0').slice(0, 120));

/** The zip64 extra field's values for the fields that are full (in the order the format gives them), or undefined. */
function zip64Values(extra: Buffer, wanted: number): number[] | undefined {
  for (let at = 0; at + 4 <= extra.byteLength;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (at + 4 + length > extra.byteLength) return undefined;
    if (id === ZIP64_EXTRA) {
      if (length < wanted * 8) return undefined;
      return Array.from({ length: wanted }, (_, i) => readU64(extra, at + 4 + i * 8));
    }
    at += 4 + length;
  }
  return undefined;
}

/** Sizes (and offset) with the full ones taken from the zip64 extra field. */
function withZip64(
  fields: { size: number; compressedSize: number; headerOffset?: number },
  extra: Buffer,
  refuse: (reason: string) => never,
  name: string,
): { size: number; compressedSize: number; headerOffset: number } {
  const order = (['size', 'compressedSize', 'headerOffset'] as const).filter((key) => fields[key] === U32);
  const result = { size: fields.size, compressedSize: fields.compressedSize, headerOffset: fields.headerOffset ?? 0 };
  if (order.length === 0) return result;
  const values = zip64Values(extra, order.length);
  if (!values) refuse(`entry ${shown(name)} has full 32-bit fields and no zip64 field to give them (lying zip64 fields)`);
  order.forEach((key, i) => (result[key] = values[i]!));
  return result;
}

/**
 * Reads and checks the central directory of the ZIP at `path`: refused (a WaczFileError naming the
 * file) when it is no ZIP, spans disks, has too many entries, or any entry is encrypted, has an unsafe or
 * repeated name, lies past the directory or over another entry, or says in its local header what the
 * directory does not.
 */
export async function readZipDirectory(path: string, file: FileHandle, size: number): Promise<ZipEntry[]> {
  const refuse = (reason: string): never => {
    throw new WaczFileError(path, reason);
  };
  const directory = await findDirectory(file, size, refuse);
  const bytes = await readAt(file, directory.offset, directory.size);
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let at = 0;
  for (let i = 0; i < directory.entries; i++) {
    if (at + CENTRAL_HEADER_BYTES > bytes.byteLength || bytes.readUInt32LE(at) !== SIG_CENTRAL)
      refuse(`its central directory holds fewer entries than its end record says (${i} of ${directory.entries})`);
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const next = at + CENTRAL_HEADER_BYTES + nameLength + extraLength + commentLength;
    if (next > bytes.byteLength) refuse('an entry of its central directory runs past the directory (lying sizes)');
    const rawName = bytes.subarray(at + CENTRAL_HEADER_BYTES, at + CENTRAL_HEADER_BYTES + nameLength);
    const name = rawName.toString(flags & FLAG_UTF8 ? 'utf8' : 'latin1');
    const unsafe = unsafeName(name);
    if (unsafe) refuse(`entry ${shown(name)} has ${unsafe} in its name`);
    if (names.has(name)) refuse(`two entries named ${shown(name)}`);
    names.add(name);
    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) || method === METHOD_AES) refuse(`entry ${shown(name)} is encrypted`);
    if (bytes.readUInt16LE(at + 34) !== 0 && bytes.readUInt16LE(at + 34) !== U16) refuse('a ZIP split over several disks');
    const extra = bytes.subarray(at + CENTRAL_HEADER_BYTES + nameLength, at + CENTRAL_HEADER_BYTES + nameLength + extraLength);
    const fields = withZip64(
      { compressedSize: bytes.readUInt32LE(at + 20), size: bytes.readUInt32LE(at + 24), headerOffset: bytes.readUInt32LE(at + 42) },
      extra,
      refuse,
      name,
    );
    entries.push({ name, method, crc32: bytes.readUInt32LE(at + 16), ...fields, dataOffset: 0 });
    entries[entries.length - 1]!.dataOffset = await checkLocalHeader(file, entries[entries.length - 1]!, rawName, flags, directory, refuse);
    at = next;
  }
  checkApart(entries, refuse);
  return entries;
}

/** Checks the entry's local header against the directory; returns where its data starts. */
async function checkLocalHeader(
  file: FileHandle,
  entry: ZipEntry,
  rawName: Buffer,
  flags: number,
  directory: Directory,
  refuse: (reason: string) => never,
): Promise<number> {
  const name = shown(entry.name);
  if (entry.headerOffset + LOCAL_HEADER_BYTES > directory.offset) refuse(`entry ${name} starts past the entries' end (lying sizes)`);
  const head = await readAt(file, entry.headerOffset, LOCAL_HEADER_BYTES);
  if (head.byteLength < LOCAL_HEADER_BYTES || head.readUInt32LE(0) !== SIG_LOCAL)
    refuse(`entry ${name} has no local header where the directory says`);
  const nameLength = head.readUInt16LE(26);
  const extraLength = head.readUInt16LE(28);
  const dataOffset = entry.headerOffset + LOCAL_HEADER_BYTES + nameLength + extraLength;
  if (dataOffset > directory.offset) refuse(`entry ${name} runs into the central directory (lying sizes)`);
  const rest = await readAt(file, entry.headerOffset + LOCAL_HEADER_BYTES, nameLength + extraLength);
  const localFlags = head.readUInt16LE(6);
  if (!rest.subarray(0, nameLength).equals(rawName)) refuse(`entry ${name} has another name in its local header`);
  if (head.readUInt16LE(8) !== entry.method) refuse(`entry ${name} has another compression method in its local header`);
  if (localFlags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) refuse(`entry ${name} is encrypted`);
  // With a data descriptor, the local header may leave the sizes at zero; otherwise they must be the directory's.
  if (
    !(localFlags & FLAG_DATA_DESCRIPTOR) ||
    !(flags & FLAG_DATA_DESCRIPTOR) ||
    head.readUInt32LE(18) !== 0 ||
    head.readUInt32LE(22) !== 0
  ) {
    const local = withZip64(
      { compressedSize: head.readUInt32LE(18), size: head.readUInt32LE(22) },
      rest.subarray(nameLength),
      refuse,
      entry.name,
    );
    if (local.compressedSize !== entry.compressedSize || local.size !== entry.size)
      refuse(
        `entry ${name} says ${local.compressedSize} bytes (${local.size} inflated) in its local header and ${entry.compressedSize} (${entry.size}) in the directory (lying sizes)`,
      );
    if (!(localFlags & FLAG_DATA_DESCRIPTOR) && head.readUInt32LE(14) !== entry.crc32)
      refuse(`entry ${name} has another CRC-32 in its local header`);
  }
  if (dataOffset + entry.compressedSize > directory.offset)
    refuse(`entry ${name} says ${entry.compressedSize} bytes, past the end of the entries (lying sizes)`);
  if (entry.method === 0 && entry.compressedSize !== entry.size)
    refuse(`stored entry ${name} says ${entry.compressedSize} bytes stored and ${entry.size} inflated (lying sizes)`);
  return dataOffset;
}

/** No two entries share a byte: overlapping entries are how a small ZIP is made to inflate to a huge one. */
function checkApart(entries: ZipEntry[], refuse: (reason: string) => never): void {
  const sorted = [...entries].sort((a, b) => a.headerOffset - b.headerOffset);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    if (before.dataOffset + before.compressedSize > sorted[i]!.headerOffset)
      refuse(`entries ${shown(before.name)} and ${shown(sorted[i]!.name)} overlap (lying sizes)`);
  }
}
