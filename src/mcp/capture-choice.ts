import type { ArchivedPage, ArchiveReader, CaptureTime } from '../storage/reader/index.js';
import { normalizeUrl } from '../url/index.js';
import { CrawliteError } from '../crawlite-error.js';

export class McpArgumentError extends CrawliteError {
  constructor(message: string) {
    super('MCP_ARGUMENT', message);
  }
}

/** The archive's key for a URL as typed: as typed if the archive holds it, else its normalised form. */
export function archivedUrl(reader: ArchiveReader, asked: string): string | undefined {
  const normalized = normalizeUrl(asked);
  const candidates = [asked, 'error' in normalized ? undefined : normalized.key];
  return candidates.find((key): key is string => key !== undefined && reader.captureTimes(key).length > 0);
}

/**
 * A time as typed: ISO 8601 (`2026-11-29`, `2026-11-29T02:39:03Z`) or the digits of a Wayback
 * timestamp (`20261129023903`, or fewer: `202611` is the start of November), in ms since the epoch.
 */
export function parseTimestamp(text: string): number {
  const digits = /^\d{4,14}$/.test(text)
    ? text
        .padEnd(14, '0')
        .replace(/^(\d{4})00/, '$101')
        .replace(/^(\d{6})00/, '$101')
    : undefined;
  const iso = digits
    ? `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}T${digits.slice(8, 10)}:${digits.slice(10, 12)}:${digits.slice(12, 14)}Z`
    : text;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms))
    throw new McpArgumentError(
      `timestamp ${JSON.stringify(text)} is not a time: give ISO 8601 (2026-11-29T02:39:03Z) or 14 digits (20261129023903)`,
    );
  return ms;
}

/** The capture of `url` at `timestamp`: the latest made at or before it, or the first if all came after; the latest without one. */
export function chooseCapture(
  reader: ArchiveReader,
  url: string,
  timestamp: string | undefined,
): { page: ArchivedPage; times: CaptureTime[] } | undefined {
  const times = reader.captureTimes(url);
  if (times.length === 0) return undefined;
  let chosen = times[times.length - 1]!;
  if (timestamp !== undefined) {
    const at = parseTimestamp(timestamp);
    const before = times.filter((time) => Date.parse(time.fetchedAt) <= at);
    chosen = before.length > 0 ? before[before.length - 1]! : times[0]!;
  }
  const page = reader.captureAt(url, chosen.fetchedAt);
  return page ? { page, times } : undefined;
}
