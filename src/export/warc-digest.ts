import { createHash } from 'node:crypto';
import { base32 } from '../storage/writer/index.js';

/** 'sha1:' and the base32 SHA-1 of some bytes, as WARC-Block-Digest and WARC-Payload-Digest write it. */
export function sha1Digest(...parts: Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  return `sha1:${base32(hash.digest())}`;
}
