import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInflateRaw, crc32 } from 'node:zlib';
import type { RandomAccess } from '../warc-source.js';
import { WaczFileError } from './wacz-errors.js';
import type { ZipEntry } from './zip-directory.js';

/**
 * Inflated bytes per deflated byte at most, for an entry of some size: a WARC deflates 3 to 10 times
 * (a .warc.gz not at all), and deflate's own ceiling is 1032, which only a zip bomb comes near.
 */
export const MAX_RATIO = 100;
const RATIO_FREE_BYTES = 1024 * 1024;
/** Inflated bytes kept behind the last read of a deflated entry; reading further back inflates it again from its start. */
const KEEP_BEHIND = 1024 * 1024;

const STORED = 0;
const DEFLATED = 8;

const shown = (name: string) => JSON.stringify(name);

/** Refuses an entry that cannot be read: a method other than stored or deflated, or an inflation ratio only a bomb has. */
export function checkReadable(path: string, entry: ZipEntry): void {
  if (entry.method !== STORED && entry.method !== DEFLATED)
    throw new WaczFileError(
      path,
      `entry ${shown(entry.name)} is compressed with method ${entry.method} (only stored and deflated are read)`,
    );
  if (entry.method === DEFLATED && entry.size > RATIO_FREE_BYTES && entry.size > entry.compressedSize * MAX_RATIO)
    throw new WaczFileError(
      path,
      `entry ${shown(entry.name)} would inflate ${Math.round(entry.size / Math.max(1, entry.compressedSize))}-fold, from ${entry.compressedSize} to ${entry.size} bytes (a zip bomb; at most ${MAX_RATIO}-fold)`,
    );
}

/**
 * The entry's bytes as they come, inflated if deflated: never more than its directory says (a bomb
 * that declares little and inflates much is cut off at the declared size and refused), and at the end
 * exactly that many, with the CRC-32 it declares.
 */
export async function* entryChunks(path: string, entry: ZipEntry): AsyncGenerator<Buffer> {
  checkReadable(path, entry);
  if (entry.compressedSize === 0 && entry.size === 0) return;
  const raw = createReadStream(path, { start: entry.dataOffset, end: entry.dataOffset + entry.compressedSize - 1 });
  const stream = entry.method === DEFLATED ? raw.pipe(createInflateRaw()) : raw;
  raw.on('error', (error) => stream.destroy(error));
  let length = 0;
  let crc = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.byteLength;
      if (length > entry.size)
        throw new WaczFileError(path, `entry ${shown(entry.name)} inflates past the ${entry.size} bytes it declares (a zip bomb)`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof WaczFileError) throw error;
    throw new WaczFileError(path, `entry ${shown(entry.name)} does not inflate (${(error as Error).message})`);
  } finally {
    stream.destroy();
    raw.destroy();
  }
  if (length !== entry.size)
    throw new WaczFileError(path, `entry ${shown(entry.name)} holds ${length} of the ${entry.size} bytes it declares`);
  if (crc !== entry.crc32) throw new WaczFileError(path, `entry ${shown(entry.name)} fails its CRC-32 check`);
}

/** Reads the entry through once, so that a deflated entry that lies is refused before anything is written. */
export async function checkEntry(path: string, entry: ZipEntry): Promise<void> {
  for await (const _ of entryChunks(path, entry));
}

/** A stored entry read in place: a window on the ZIP file. */
async function storedAccess(path: string, entry: ZipEntry): Promise<RandomAccess> {
  const file = await open(path, 'r');
  return {
    read: (buffer, offset, length, position) =>
      file.read(buffer, offset, Math.max(0, Math.min(length, entry.size - position)), entry.dataOffset + position),
    close: () => file.close(),
  };
}

/**
 * A deflated entry read by position: inflated as it is read forward, the last stretch kept, and
 * inflated again from its start for a read further back (only a damaged WARC member makes the
 * reader go back that far).
 */
function deflatedAccess(path: string, entry: ZipEntry): RandomAccess {
  let chunks: AsyncGenerator<Buffer> | undefined;
  let held: { start: number; bytes: Buffer }[] = [];
  let produced = 0;
  let ended = false;
  const restart = async () => {
    await chunks?.return(undefined);
    chunks = entryChunks(path, entry);
    held = [];
    produced = 0;
    ended = false;
  };
  return {
    async read(buffer, offset, length, position) {
      if (!chunks || position < (held[0]?.start ?? produced)) await restart();
      while (!ended && produced < position + length) {
        const next = await chunks!.next();
        if (next.done) {
          ended = true;
          break;
        }
        held.push({ start: produced, bytes: next.value });
        produced += next.value.byteLength;
      }
      let copied = 0;
      for (const { start, bytes } of held) {
        const from = Math.max(position + copied, start);
        const to = Math.min(position + length, start + bytes.byteLength);
        if (from !== position + copied || to <= from) continue;
        bytes.copy(buffer, offset + copied, from - start, to - start);
        copied += to - from;
      }
      while (held.length > 1 && held[0]!.start + held[0]!.bytes.byteLength < position - KEEP_BEHIND) held.shift();
      return { bytesRead: copied };
    },
    close: async () => {
      await chunks?.return(undefined);
    },
  };
}

/** Opens the entry for reading by position. */
export async function entryAccess(path: string, entry: ZipEntry): Promise<RandomAccess> {
  checkReadable(path, entry);
  return entry.method === STORED ? storedAccess(path, entry) : deflatedAccess(path, entry);
}
