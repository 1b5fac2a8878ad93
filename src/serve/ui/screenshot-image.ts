import { SCREENSHOT_TYPES, screenshotType, type ArchivedPage, type Screenshot, type ScreenshotType } from '../../storage/reader/index.js';
import { captureTimestamp } from '../replay-url.js';
import { UiHttpError, type UiContext } from './ui-context.js';

/** The UI's link to the screenshot of a URL's capture: the latest, or the one at a 14-digit timestamp. */
export const screenshotHref = (url: string, timestamp?: string): string =>
  `/screenshot?url=${encodeURIComponent(url)}${timestamp === undefined ? '' : `&ts=${timestamp}`}`;

/** A screenshot with a type the UI serves it as. */
export interface ShownScreenshot {
  type: ScreenshotType;
  data: Buffer;
}

/**
 * What the UI makes of a stored screenshot: an image of one of the allowed types, else the type as
 * stored (an archive may say anything there: it is never served as an image, nor sniffed).
 */
export function shownScreenshot(stored: Screenshot): ShownScreenshot | { refused: string } {
  const type = screenshotType(stored.type);
  return type ? { type, data: stored.data } : { refused: stored.type.slice(0, 80) };
}

/** `/screenshot?url=[&ts=]`: the screenshot of the capture the capture page shows (`page`), as an image of its checked type. */
export function screenshotImage(context: UiContext, page: ArchivedPage): ShownScreenshot {
  const stored = context.archive.screenshot(page.url, page.fetchedAt);
  if (!stored)
    throw new UiHttpError(
      404,
      `no screenshot of ${page.url} at ${captureTimestamp(page.fetchedAt)}: the page was not rendered in a browser`,
    );
  const shown = shownScreenshot(stored);
  if ('refused' in shown) {
    throw new UiHttpError(
      404,
      `the screenshot of ${page.url} is stored as "${shown.refused}", not one of the image types crawlite serves (${SCREENSHOT_TYPES.join(', ')})`,
    );
  }
  return shown;
}
