import { createHash } from 'node:crypto';

// The per-site replay hosts of `crawlite serve` on loopback, spelled out here from the rule itself
// (docs/serve.md, "How replay works"), not from serve's code: `<ts14>-<key>.crawlite.localhost:<replayPort>`,
// the key the first 16 characters of the base32 (RFC 4648, lower case) of SHA-256 of the origin.

function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let at = 0; at + 5 <= bits.length; at += 5) out += alphabet[parseInt(bits.slice(at, at + 5), 2)];
  return out;
}

/** `http://<ts>-<key>.crawlite.localhost:<port>`: where `origin` is replayed near `ts` by the serve whose base replay origin is `replayOrigin`. */
export function replayHostOrigin(replayOrigin: string, origin: string, ts: string): string {
  const key = base32(createHash('sha256').update(new URL(origin).origin).digest()).slice(0, 16);
  return `http://${ts}-${key}.crawlite.localhost:${new URL(replayOrigin).port}`;
}

/** The URL that replays `url` (its fragment kept) near `ts` on its site's own host. */
export function siteReplayUrl(replayOrigin: string, url: string, ts: string): string {
  const parsed = new URL(url);
  return replayHostOrigin(replayOrigin, parsed.origin, ts) + parsed.pathname + parsed.search + parsed.hash;
}

/** Whether `host` (`name:port`) is a per-site replay host of the serve whose base replay origin is `replayOrigin`. */
export function isReplayHost(replayOrigin: string, host: string): boolean {
  return replayHostPattern(replayOrigin).test(host);
}

/** A pattern of the per-site replay hosts (`name:port`) of that serve. */
export function replayHostPattern(replayOrigin: string): RegExp {
  return new RegExp(`^\\d{14}-[a-z2-7]{16}\\.crawlite\\.localhost:${new URL(replayOrigin).port}$`);
}

/** A pattern of their origins (`http://name:port`). */
export function replayHostOriginPattern(replayOrigin: string): RegExp {
  return new RegExp(`^http://\\d{14}-[a-z2-7]{16}\\.crawlite\\.localhost:${new URL(replayOrigin).port}$`);
}

/** `http://crawlite.localhost:<uiPort>`: where the UI's replay page is moved for a browser, on the replay hosts' own domain. */
export function replayPageOrigin(uiUrl: string): string {
  return `http://crawlite.localhost:${new URL(uiUrl).port}`;
}

/** Every host (`name:port`) a browser may reach of the serve whose UI is `uiUrl`: the UI on both its names, replay's base origin, the sites' replay hosts. */
export function serveHosts(uiUrl: string, replayOrigin: string): Array<string | RegExp> {
  return [new URL(uiUrl).host, new URL(replayPageOrigin(uiUrl)).host, new URL(replayOrigin).host, replayHostPattern(replayOrigin)];
}

/** The same, as origins (`http://name:port`). */
export function serveOrigins(uiUrl: string, replayOrigin: string): Array<string | RegExp> {
  return [new URL(uiUrl).origin, replayPageOrigin(uiUrl), new URL(replayOrigin).origin, replayHostOriginPattern(replayOrigin)];
}
