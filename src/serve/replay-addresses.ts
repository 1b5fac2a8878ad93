import { hostLabel, originKey, parseReplayHost, REPLAY_DOMAIN } from './replay-host.js';
import { replayPath, type ReplayModifier } from './replay-url.js';

/** How long a key that names no known origin keeps the archive's origins from being read again. */
const REFRESH_MS = 3000;
/** The most origins remembered from URLs built here (live links of replayed pages): then forgotten, the archive's are read again. */
const MAX_REMEMBERED = 50_000;

/**
 * Where the capture of a URL is replayed, for the UI and for replay alike. On loopback (`perOrigin`),
 * each archived origin at a timestamp has a host of its own (replay-host.ts) and the captured path
 * and query as its own; the body as captured (`id_`) stays a path of the base replay origin
 * (`/<ts>id_/<url>`), where nothing runs. Elsewhere (remote readers cannot resolve `*.localhost`)
 * every capture is a path of the base origin, pywb style.
 */
export interface ReplayAddresses {
  /** `http://127.0.0.1:PORT`: the base replay origin. */
  readonly baseOrigin: string;
  readonly port: number;
  readonly perOrigin: boolean;
  /** The URL that replays `url` (its fragment kept) near `timestamp` (padded to 14 digits). */
  replayUrl(url: string, timestamp: string, modifier?: ReplayModifier): string;
  /** The origin replaying `origin` near `timestamp`: its own host, or the base origin. */
  siteOrigin(origin: string, timestamp: string): string;
  /** CSP sources naming every replay origin of this server. */
  readonly cspSources: string;
  /** Whether `origin` (an Origin header, a message's origin) is one of this server's replay origins. */
  isReplayOrigin(origin: string): boolean;
  /** Whether `origin` is an archived site's own replay host of this server (not the base origin). */
  isSiteOrigin(origin: string): boolean;
  /** The archived origin and timestamp a Host header names, if it is a replay host; `origin` undefined for a key that names none known. */
  site(host: string): { timestamp: string; origin: string | undefined } | undefined;
}

/** `origins` lists the archive's origins (read again on a miss, at most every few seconds, so a serve of an archive being crawled finds new ones). */
export function replayAddresses(baseOrigin: string, perOrigin: boolean, origins: () => Iterable<string> = () => []): ReplayAddresses {
  const base = new URL(baseOrigin);
  const port = Number(base.port || 80);
  const known = new Map<string, string>();
  let readAt = -Infinity;
  const remember = (origin: string): string => {
    const key = originKey(origin);
    if (!known.has(key)) {
      if (known.size >= MAX_REMEMBERED) {
        known.clear();
        readAt = -Infinity;
      }
      known.set(key, origin);
    }
    return key;
  };
  const resolve = (key: string): string | undefined => {
    const found = known.get(key);
    if (found !== undefined || Date.now() - readAt < REFRESH_MS) return found;
    readAt = Date.now();
    for (const origin of origins()) {
      try {
        remember(new URL(origin).origin);
      } catch {
        // Not an origin: nothing to replay there.
      }
    }
    return known.get(key);
  };
  const siteOrigin = (origin: string, timestamp: string): string => {
    if (!perOrigin) return base.origin;
    remember(origin);
    return `http://${hostLabel(origin, timestamp.padEnd(14, '0'))}.${REPLAY_DOMAIN}:${port}`;
  };
  const hostPattern = new RegExp(`^http://\\d{14}-[a-z2-7]{16}\\.crawlite\\.localhost:${port}$`);
  return {
    baseOrigin: base.origin,
    port,
    perOrigin,
    replayUrl(url, timestamp, modifier = '') {
      if (!perOrigin || modifier === 'id_') return base.origin + replayPath(url, timestamp, modifier);
      const parsed = new URL(url);
      return siteOrigin(parsed.origin, timestamp) + parsed.pathname + parsed.search + parsed.hash;
    },
    siteOrigin,
    cspSources: perOrigin ? `${base.origin} http://*.${REPLAY_DOMAIN}:${port}` : base.origin,
    isReplayOrigin: (origin) => origin === base.origin || (perOrigin && hostPattern.test(origin)),
    isSiteOrigin: (origin) => perOrigin && hostPattern.test(origin),
    site(host) {
      if (!perOrigin) return undefined;
      const parsed = parseReplayHost(host, port);
      return parsed && { timestamp: parsed.timestamp, origin: resolve(parsed.key) };
    },
  };
}
