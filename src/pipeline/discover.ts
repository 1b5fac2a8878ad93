import type { DiscoveredUrl, LinkKind, UrlKind } from './ports.js';
import type { NormalizedUrl } from '../url/index.js';

/** A discovered URL, from its normalised form and how it was found. */
export function discover(
  normalized: NormalizedUrl,
  kind: LinkKind,
  target: UrlKind,
  depth: number,
  redirectHops = 0,
  extra: Pick<DiscoveredUrl, 'nofollow' | 'linkOnly'> = {},
): DiscoveredUrl {
  const found: DiscoveredUrl = { url: normalized.url, key: normalized.key, origin: normalized.origin, kind, target, depth, redirectHops };
  if (normalized.pathKey) found.pathKey = normalized.pathKey;
  if (extra.nofollow) found.nofollow = true;
  if (extra.linkOnly) found.linkOnly = true;
  return found;
}
