import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

export class UndecodableContentError extends Error {}
export class DecodedTooLargeError extends Error {}

type Decoder = (data: Buffer, limit: number) => Promise<Buffer>;

const DECODERS: Record<string, Decoder> = {
  gzip: (data, limit) => gunzip(data, { maxOutputLength: limit, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  'x-gzip': (data, limit) => gunzip(data, { maxOutputLength: limit, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
  deflate: (data, limit) =>
    inflate(data, { maxOutputLength: limit }).catch((error: unknown) =>
      isTooLarge(error) ? Promise.reject(error) : inflateRaw(data, { maxOutputLength: limit }),
    ),
  br: (data, limit) => brotli(data, { maxOutputLength: limit }),
};

const isTooLarge = (error: unknown) =>
  error instanceof RangeError || (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE');

/**
 * Undoes Content-Encoding, last coding first. A body that cannot be undone
 * is an error, never stored half-decoded; decoding stops at `limit` bytes so
 * a compression bomb cannot fill memory.
 */
export async function decodeContent(data: Buffer, contentEncoding: string | undefined, limit: number): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let body = data;
  for (const coding of codings) {
    const decoder = DECODERS[coding];
    if (!decoder) throw new UndecodableContentError(`unsupported Content-Encoding ${coding}`);
    try {
      body = await decoder(body, limit);
    } catch (error) {
      if (isTooLarge(error)) throw new DecodedTooLargeError(`${coding} body inflates past ${limit} bytes`);
      throw new UndecodableContentError(`corrupt ${coding} body: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return body;
}
