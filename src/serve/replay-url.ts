/**
 * Where a capture lives on the replay origin, pywb style: `/{timestamp}{modifier}/{url}`, the
 * timestamp being the capture's 14 digits (`YYYYMMDDhhmmss`, UTC). The `id_` modifier asks for the
 * body exactly as captured, unrewritten. Replay finds the capture of `url` nearest that time, so a
 * rewritten link needs no lookup when the page is rewritten.
 */
export type ReplayModifier = '' | 'id_';

/** `2026-11-23T10:55:33.123Z` → `20261123105533`; anything shorter is padded as pywb does. */
export function captureTimestamp(fetchedAt: string): string {
  return fetchedAt.replace(/\D/g, '').slice(0, 14).padEnd(14, '0');
}

/** The path (with query) on the replay origin of `url` as captured near `timestamp`. */
export function replayPath(url: string, timestamp: string, modifier: ReplayModifier = ''): string {
  return `/${timestamp}${modifier}/${url}`;
}

export interface ReplayTarget {
  timestamp: string;
  modifier: ReplayModifier;
  url: string;
}

/** Reads a replay path back (`/20261123105533/http://a.example/x?y`); undefined if it is not one. */
export function parseReplayPath(pathWithQuery: string): ReplayTarget | undefined {
  const match = /^\/(\d{1,14})(id_)?\/(https?:\/\/?.*)$/is.exec(pathWithQuery);
  if (!match) return undefined;
  // Some clients fold the `//` after the scheme into one slash.
  const url = match[3]!.replace(/^(https?:)\/(?!\/)/i, '$1//');
  return { timestamp: match[1]!.padEnd(14, '0'), modifier: (match[2] ?? '') as ReplayModifier, url };
}
