import { createHash } from 'node:crypto';

/**
 * The host an archived origin is replayed on at a timestamp, when serve listens on loopback:
 * `<ts14>-<key>.crawlite.localhost:<replayPort>`, the key 16 characters of base32 (RFC 4648, lower
 * case) of the origin's SHA-256. A DNS label holds at most 63 of [a-z0-9-]; this one holds 31.
 * Browsers (and curl) resolve every `*.localhost` name to loopback without asking DNS, so a
 * DNS-rebinding page can never claim one, and each archived site at each time is an origin of its
 * own: walled off from the others and from the UI, with the captured path as its own. All of them
 * and the UI's replay page (`crawlite.localhost:<port>`) are one site, so a replayed page is no
 * third party in the UI's frame: browsers that block third-party storage (Chromium's incognito
 * windows, say) let it keep its localStorage and cookies, each origin its own. The key is one-way: the server
 * reads it back through the origins it knows (replay-addresses.ts); the shim computes it in the
 * browser the same way (shim-origin-key.ts).
 */
export const ORIGIN_KEY_LENGTH = 16;

/** The domain under which the replay hosts live, and whose own name serves the UI's replay page. */
export const REPLAY_DOMAIN = 'crawlite.localhost';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A label this server can have made: 14 digits, a dash, a key. */
export const HOST_LABEL = /^(\d{14})-([a-z2-7]{16})$/;

/** The key of an origin (`https://example.com`, as URL serialises it). */
export function originKey(origin: string): string {
  const digest = createHash('sha256').update(origin).digest();
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < ORIGIN_KEY_LENGTH) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= ORIGIN_KEY_LENGTH) break;
  }
  return out;
}

/** The label of `origin` replayed near `timestamp` (14 digits). */
export function hostLabel(origin: string, timestamp: string): string {
  return `${timestamp}-${originKey(origin)}`;
}

/** The timestamp and key a Host header (`<label>.crawlite.localhost:<port>`) names, if it is a replay host of `port`. */
export function parseReplayHost(host: string, port: number): { timestamp: string; key: string } | undefined {
  const suffix = `.${REPLAY_DOMAIN}:${port}`;
  if (!host.endsWith(suffix)) return undefined;
  const match = HOST_LABEL.exec(host.slice(0, -suffix.length));
  return match ? { timestamp: match[1]!, key: match[2]! } : undefined;
}
