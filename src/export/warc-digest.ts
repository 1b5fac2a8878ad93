import { createHash } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, no padding: the form WARC digests take. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** 'sha1:' and the base32 SHA-1 of some bytes, as WARC-Block-Digest and WARC-Payload-Digest write it. */
export function sha1Digest(...parts: Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  return `sha1:${base32(hash.digest())}`;
}
