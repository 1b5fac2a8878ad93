import { normalizeUrl } from '../../pipeline/normalize-url.js';
import type { ArchivedPage, ArchiveReader } from '../../storage/archive-reader.js';

/**
 * The capture that replays `url` near `timestamp`: the archive's key for the URL is its
 * normalised form, as the crawl stored it in `pages.url`. An archive holds one response per URL
 * today, so that one is the nearest; `timestamp` picks among several once an archive keeps them.
 */
export function findCapture(archive: ArchiveReader, url: string, _timestamp: string): ArchivedPage | undefined {
  const normalized = normalizeUrl(url);
  if ('error' in normalized) return undefined;
  return archive.page(normalized.key);
}
