import zlib from 'node:zlib';
import { decodeContent, DecodedTooLargeError, UndecodableContentError } from '../http/decode-content.js';

/**
 * What an import says of a body that does not decode as its Content-Encoding says (see migrations/0016):
 * `not-encoded`, kept as stored; `partly-decoded`, the part decoded kept.
 */
export type BodyNote = 'not-encoded' | 'partly-decoded';

export interface StoredBody {
  body: Buffer;
  note?: BodyNote;
}

const CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** The codings a gzip or zlib stream can be told by: they begin with a signature, so what decodes before a failure is theirs. */
const SIGNED: Record<string, () => zlib.Gunzip | zlib.Inflate> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
};

/** The bytes a stream decodes from `data` before it fails, up to `limit`. */
function decodedBefore(data: Buffer, stream: zlib.Gunzip | zlib.Inflate, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(parts));
    stream.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        stream.destroy();
        reject(new DecodedTooLargeError(`body inflates past ${limit} bytes`));
      } else parts.push(chunk);
    });
    stream.on('error', done);
    stream.on('end', done);
    stream.end(data);
  });
}

/**
 * A record's body decoded as a crawl decodes it; one that does not decode as its header says is kept as
 * warcio and pywb read it: browser-based recorders store bodies already decoded under the header as
 * received (`not-encoded`, kept as stored), and a gzip or zlib stream that fails part-way keeps what
 * decoded before the failure (`partly-decoded`). A cut stream decodes as far as it goes without a note,
 * as in a crawl. A coding the crawl cannot undo, and a body over `limit`, still throw.
 */
export async function storedBody(data: Buffer, contentEncoding: string | undefined, limit: number): Promise<StoredBody> {
  try {
    return { body: await decodeContent(data, contentEncoding, limit) };
  } catch (error) {
    if (!(error instanceof UndecodableContentError)) throw error;
    const codings = (contentEncoding ?? '')
      .split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== '' && coding !== 'identity');
    if (!codings.every((coding) => CODINGS.has(coding))) throw error;
    const signed = codings.length === 1 ? SIGNED[codings[0]!] : undefined;
    const part = signed ? await decodedBefore(data, signed(), limit) : Buffer.alloc(0);
    return part.byteLength > 0 ? { body: part, note: 'partly-decoded' } : { body: data, note: 'not-encoded' };
  }
}
