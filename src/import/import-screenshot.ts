import { screenshotType, type ScreenshotType } from '../storage/reader/index.js';
import { normalizeUrl } from '../url/index.js';
import { isoDate } from './exchange-page.js';
import { targetUri } from './pair-exchanges.js';
import type { WarcRecord } from './warc-reader.js';

/** The prefix of a screenshot's WARC-Target-URI, before the URL of the page it shows. */
const VIEW_PREFIX = 'urn:view:';

/** A screenshot record read: the archive key of the page it shows, the time of that page's capture, and the image. */
export interface ImportedScreenshot {
  key: string;
  fetchedAt: string;
  shot: { type: ScreenshotType; data: Buffer };
}

/**
 * The screenshot a resource record holds, as crawlite's export and Browsertrix write them
 * (src/export/write-warc.ts): WARC-Target-URI `urn:view:` and the page's URL, WARC-Date the page
 * capture's, Content-Type an image type, the block the image. Anything else is no screenshot.
 */
export function screenshotOf(record: WarcRecord): ImportedScreenshot | undefined {
  const uri = targetUri(record);
  if (record.type !== 'resource' || record.cutFrom !== undefined || !uri?.toLowerCase().startsWith(VIEW_PREFIX)) return undefined;
  const type = screenshotType(record.fields.get('content-type'));
  const page = normalizeUrl(uri.slice(VIEW_PREFIX.length));
  const fetchedAt = isoDate(record.fields.get('warc-date'));
  if (!type || 'error' in page || !fetchedAt || record.content.byteLength === 0) return undefined;
  return { key: page.key, fetchedAt, shot: { type, data: record.content } };
}
