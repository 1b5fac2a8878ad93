import { normalizeUrl } from '../../url/index.js';
import type { ArchivedPage, ArchiveReader, CaptureTime } from '../../storage/reader/index.js';
import { captureTimestamp } from '../replay-url.js';

/** 14 digits (`YYYYMMDDhhmmss`, UTC) as milliseconds since the epoch; NaN for a date that does not exist. */
export function timestampMs(timestamp: string): number {
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((at, i) => Number(timestamp.slice(at, at + (i === 0 ? 4 : 2))));
  return Date.UTC(y!, Math.max(mo! - 1, 0), Math.max(d!, 1), h, mi, s);
}

/**
 * The capture on a timeline nearest `timestamp` (pywb's rule): the one whose own 14-digit
 * timestamp is closest; a tie goes to the later capture. Compared at the timestamp's precision
 * (seconds), so a capture's own timestamp always finds that capture.
 */
export function nearestCapture(times: readonly CaptureTime[], timestamp: string): CaptureTime | undefined {
  const wanted = timestampMs(timestamp);
  let best: CaptureTime | undefined;
  let bestDistance = Infinity;
  for (const time of times) {
    const distance = Math.abs(timestampMs(captureTimestamp(time.fetchedAt)) - wanted);
    if (!(distance > bestDistance)) {
      best = time;
      bestDistance = distance;
    }
  }
  return best;
}

/** The archive's key for a URL: its normalised form, as the crawl stored it in `pages.url`. */
export function archiveKey(url: string): string | undefined {
  const normalized = normalizeUrl(url);
  return 'error' in normalized ? undefined : normalized.key;
}

/** The URL's capture at a time on its timeline: the latest is the `pages` row, earlier ones come from `captures`. */
export function captureOf(archive: ArchiveReader, key: string, time: CaptureTime): ArchivedPage | undefined {
  return time.latest ? archive.page(key) : archive.captureAt(key, time.fetchedAt);
}

/**
 * The capture that answers a replayed request of `method` (a POST) to `url` that sent `body`: one made
 * by a request of that method with exactly that body, the nearest `timestamp`; never a GET's capture.
 */
export function findRequestCapture(
  archive: ArchiveReader,
  url: string,
  method: string,
  body: Buffer,
  timestamp: string,
): ArchivedPage | undefined {
  const key = archiveKey(url);
  const wanted = timestampMs(timestamp);
  if (key === undefined || Number.isNaN(wanted)) return undefined;
  return archive.requestCapture(key, method, body, new Date(wanted).toISOString());
}
