import { MemberInflator, PUSH_BYTES } from './member-inflator.js';

/** Bytes of the file from an offset (fewer at its end). */
export type ReadAt = (at: number, length: number) => Promise<Buffer>;

/** Bytes searched at a time. */
const SEARCH_BYTES = 256 * 1024;
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
/**
 * A candidate member that has made no output by then is no member a WARC writer made: a gzip
 * header's extra field holds at most 64 KiB, and deflate gives its first 16 KiB of output within
 * about as many compressed bytes.
 */
const FIRST_OUTPUT_WITHIN = 128 * 1024;
/**
 * Compressed bytes that false starts may cost in one search for the next member, beyond a few
 * times the bytes searched: a file crafted full of them is passed over in linear time.
 */
const FALSE_START_ALLOWANCE = 16 * 1024 * 1024;
const FALSE_START_RATIO = 4;

const startsWarc = (bytes: Buffer) => /^WARC\/1\.\d\r?\n/.test(bytes.toString('latin1'));

/** The first offset of `needle` at or after `from`. */
async function find(read: ReadAt, size: number, needle: Buffer, from: number): Promise<number | undefined> {
  for (let at = from; at < size; at += SEARCH_BYTES - needle.byteLength + 1) {
    const window = await read(at, Math.min(SEARCH_BYTES, size - at));
    const found = window.indexOf(needle);
    if (found >= 0) return at + found;
    if (window.byteLength < SEARCH_BYTES) return undefined;
  }
  return undefined;
}

/**
 * A gzip member at `at` inflates to its end, and what it holds begins with a WARC version line:
 * true, or else the compressed bytes it took to tell.
 */
async function startsRecord(read: ReadAt, size: number, at: number): Promise<true | number> {
  const inflator = new MemberInflator();
  let first: Buffer | undefined;
  let position = at;
  while (position < size && !inflator.ended) {
    const input = await read(position, Math.min(PUSH_BYTES, size - position));
    inflator.push(input);
    position += input.byteLength;
    for (const bytes of inflator.chunks.splice(0)) first ??= Buffer.from(bytes.subarray(0, 16));
    if (first ? !startsWarc(first) : position - at > FIRST_OUTPUT_WITHIN) return position - at;
  }
  return inflator.ended && inflator.err === 0 && first !== undefined && startsWarc(first) ? true : position - at;
}

/**
 * The next offset from `from` where a gzip member starts that inflates whole
 * and begins with a WARC version line (`1f 8b 08` also turns up inside
 * compressed data; such a false start is passed over), or why there is none:
 * no intact member follows, or so many false starts that the rest of the file
 * is not searched.
 */
export async function nextWarcMember(read: ReadAt, size: number, from: number): Promise<number | 'none' | 'false starts'> {
  let spent = 0;
  for (let at = await find(read, size, GZIP_MAGIC, from); at !== undefined; at = await find(read, size, GZIP_MAGIC, at + 1)) {
    const tried = await startsRecord(read, size, at);
    if (tried === true) return at;
    spent += tried;
    if (spent > FALSE_START_ALLOWANCE + FALSE_START_RATIO * (at - from)) return 'false starts';
  }
  return 'none';
}
