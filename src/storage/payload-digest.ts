import { createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding: how WARC digests are written. */
function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** 'sha1:' and the base32 SHA-1 of a body: the form of WARC-Payload-Digest, kept in body.sha1. */
export function sha1Digest(body: Uint8Array): string {
  return `sha1:${base32(createHash('sha1').update(body).digest())}`;
}
