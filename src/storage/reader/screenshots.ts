import type { Database } from 'better-sqlite3';
import type { Screenshot } from './reader-types.js';

// The screenshots a browser crawl stored (migration 12), one per page capture, keyed like the
// capture: its URL and fetched_at. An archive may come from anywhere, so its `type` column is
// whatever was written there: only the image types below are ever handed on as images.

/** The image types a screenshot is shown or exported as; any other type is not an image crawlite serves. */
export const SCREENSHOT_TYPES = ['image/webp', 'image/png', 'image/jpeg'] as const;
export type ScreenshotType = (typeof SCREENSHOT_TYPES)[number];

/** The stored type as one of SCREENSHOT_TYPES (compared without case or surrounding space), else undefined. */
export function screenshotType(stored: string | null | undefined): ScreenshotType | undefined {
  const type = stored?.trim().toLowerCase();
  return SCREENSHOT_TYPES.find((allowed) => allowed === type);
}

/** Whether the archive has the screenshot table (schema 12 and later). */
export function hasScreenshots(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'screenshot'").get() !== undefined;
}

/** On the url index, then the screenshot table's primary key: one row's lookup. */
export const SCREENSHOT_AT_SQL =
  'SELECT s.type, s.data FROM url u JOIN screenshot s ON s.url_id = u.id AND s.fetched_at = ? WHERE u.url = ?';

/**
 * Looks up the screenshot of the capture of `url` (its archive key) made at `fetchedAt`; an export asks
 * once per capture, so the statement is prepared once. Undefined when the schema has no screenshots.
 */
export function screenshotLookup(db: Database): ((url: string, fetchedAt: string) => Screenshot | undefined) | undefined {
  if (!hasScreenshots(db)) return undefined;
  const statement = db.prepare<[string, string], Screenshot>(SCREENSHOT_AT_SQL);
  return (url, fetchedAt) => statement.get(fetchedAt, url);
}
