import { crc32, deflateRawSync } from 'node:zlib';

// ZIP files written byte by byte, so that a test can make one that lies: each field a test may change is
// at an offset the builder gives back.

export interface ZipItem {
  /** The name as written (a Buffer for bytes no string carries, such as a NUL). */
  name: string | Buffer;
  data: Buffer | string;
  /** Deflated (8) or stored (0, the default). */
  method?: 0 | 8;
  /** General-purpose flags, in both headers (bit 0: encrypted). */
  flags?: number;
}

/** Where an entry's headers and data start in the ZIP. */
export interface BuiltEntry {
  local: number;
  central: number;
  data: number;
  compressedSize: number;
}

export interface BuiltZip {
  bytes: Buffer;
  entries: BuiltEntry[];
  /** The central directory, and the end record. */
  centralOffset: number;
  eocd: number;
  /** With `zip64`: the zip64 end record and its locator. */
  zip64Eocd?: number;
  zip64Locator?: number;
}

/** Offsets of fields within the headers, as the ZIP format (APPNOTE 4.3.7, 4.3.12) places them. */
export const LOCAL = { flags: 6, method: 8, crc: 14, compressedSize: 18, size: 22 };
export const CENTRAL = { flags: 8, method: 10, crc: 16, compressedSize: 20, size: 24, extraLength: 30, localOffset: 42 };
export const EOCD = { entriesOnDisk: 8, entries: 10, size: 12, offset: 16 };
export const ZIP64_EOCD = { entries: 32, size: 40, offset: 48 };

/**
 * A ZIP of these items. With `zip64`, the end record's counts and offsets are full (0xFFFF, 0xFFFFFFFF)
 * and a zip64 end record and locator give them, as a writer does for a ZIP over 4 GiB.
 */
export function buildZip(items: ZipItem[], options: { zip64?: boolean } = {}): BuiltZip {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  const entries: BuiltEntry[] = [];
  let at = 0;
  for (const item of items) {
    const name = typeof item.name === 'string' ? Buffer.from(item.name, 'utf8') : item.name;
    const data = typeof item.data === 'string' ? Buffer.from(item.data) : item.data;
    const method = item.method ?? 0;
    const stored = method === 8 ? deflateRawSync(data) : data;
    const flags = (item.flags ?? 0) | 0x0800;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, LOCAL.flags);
    local.writeUInt16LE(method, LOCAL.method);
    local.writeUInt32LE(crc, LOCAL.crc);
    local.writeUInt32LE(stored.byteLength, LOCAL.compressedSize);
    local.writeUInt32LE(data.byteLength, LOCAL.size);
    local.writeUInt16LE(name.byteLength, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, CENTRAL.flags);
    central.writeUInt16LE(method, CENTRAL.method);
    central.writeUInt32LE(crc, CENTRAL.crc);
    central.writeUInt32LE(stored.byteLength, CENTRAL.compressedSize);
    central.writeUInt32LE(data.byteLength, CENTRAL.size);
    central.writeUInt16LE(name.byteLength, 28);
    central.writeUInt32LE(at, CENTRAL.localOffset);
    entries.push({ local: at, central: 0, data: at + 30 + name.byteLength, compressedSize: stored.byteLength });
    parts.push(local, name, stored);
    at += 30 + name.byteLength + stored.byteLength;
    centrals.push(Buffer.concat([central, name]));
  }
  const centralOffset = at;
  for (const [i, central] of centrals.entries()) {
    entries[i]!.central = at;
    parts.push(central);
    at += central.byteLength;
  }
  const centralSize = at - centralOffset;
  const built: Partial<BuiltZip> = {};
  if (options.zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(items.length), 24);
    record.writeBigUInt64LE(BigInt(items.length), ZIP64_EOCD.entries);
    record.writeBigUInt64LE(BigInt(centralSize), ZIP64_EOCD.size);
    record.writeBigUInt64LE(BigInt(centralOffset), ZIP64_EOCD.offset);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(at), 8);
    locator.writeUInt32LE(1, 16);
    built.zip64Eocd = at;
    built.zip64Locator = at + 56;
    parts.push(record, locator);
    at += 76;
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(options.zip64 ? 0xffff : items.length, EOCD.entriesOnDisk);
  eocd.writeUInt16LE(options.zip64 ? 0xffff : items.length, EOCD.entries);
  eocd.writeUInt32LE(options.zip64 ? 0xffffffff : centralSize, EOCD.size);
  eocd.writeUInt32LE(options.zip64 ? 0xffffffff : centralOffset, EOCD.offset);
  parts.push(eocd);
  return { ...built, bytes: Buffer.concat(parts), entries, centralOffset, eocd: at };
}
