import type { ArchivedPage, ArchiveReader, CaptureTime } from '../../storage/reader/index.js';
import { captureTimestamp } from '../replay-url.js';
import { archiveKey, captureOf, nearestCapture } from './find-capture.js';
import { fuzzyCapture } from './fuzzy-match.js';

/** What the replay bar says about the capture a replay of a URL shows; the UI's `/api/capture` sends it as JSON. */
export interface ReplayFacts {
  /** The URL asked for, as given. */
  requested: string;
  /** The archived URL whose capture is shown (its archive key): another than `requested` after a fuzzy match. */
  url: string;
  /** No capture of `requested` itself: one of a URL whose query differs only by ignored parameters (fuzzy-match.ts). */
  fuzzy: boolean;
  /** The capture's 14-digit timestamp, and its time in ISO 8601 UTC. */
  timestamp: string;
  fetchedAt: string;
  status: number;
  /** Its place on the URL's timeline, oldest first (0-based), and how many captures the URL has. */
  index: number;
  count: number;
  /** The timestamps of the captures before and after it, if any. */
  prev: string | null;
  next: string | null;
}

/**
 * The capture replay shows for `url` near `timestamp`: the URL's own nearest capture, or, only when
 * the URL has none, a fuzzy match. Exact always wins: the fuzzy lookup runs only after that.
 */
export function replayedCapture(
  archive: ArchiveReader,
  url: string,
  timestamp: string,
): { page: ArchivedPage; fuzzy: boolean } | undefined {
  const key = archiveKey(url);
  if (key === undefined) return undefined;
  const time = nearestCapture(archive.captureTimes(key), timestamp);
  const exact = time && captureOf(archive, key, time);
  if (exact) return { page: exact, fuzzy: false };
  const fuzzy = fuzzyCapture(archive, url, timestamp);
  return fuzzy && { page: fuzzy, fuzzy: true };
}

/** The facts of the capture a replay of `url` near `timestamp` shows, undefined when the archive has none. */
export function replayFacts(archive: ArchiveReader, url: string, timestamp: string): ReplayFacts | undefined {
  const found = replayedCapture(archive, url, timestamp);
  if (!found) return undefined;
  const { page, fuzzy } = found;
  const times = archive.captureTimes(page.url);
  const index = Math.max(
    times.findIndex((time) => time.fetchedAt === page.fetchedAt),
    0,
  );
  const stamp = (time: CaptureTime | undefined) => (time ? captureTimestamp(time.fetchedAt) : null);
  return {
    requested: url,
    url: page.url,
    fuzzy,
    timestamp: captureTimestamp(page.fetchedAt),
    fetchedAt: page.fetchedAt,
    status: page.status,
    index,
    count: Math.max(times.length, 1),
    prev: stamp(times[index - 1]),
    next: stamp(times[index + 1]),
  };
}
