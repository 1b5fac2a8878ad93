import { createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding (a SHA-1's 20 bytes make exactly 32 characters). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(value >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The WARC payload digest of a body, as warcio and wget write it: 'sha1:' and
 * the base32 SHA-1. `sha1` is the digest if already computed.
 */
export function payloadDigest(body: Uint8Array, sha1?: Uint8Array): string {
  return `sha1:${base32(sha1 ?? createHash('sha1').update(body).digest())}`;
}
