import type { CDPSession } from 'playwright-core';
import type { RenderedPage } from '../pipeline/renderer.js';
import { bounded, TIMED_OUT } from './bounded.js';
import { VIEWPORT } from './launch-chromium.js';

type Screenshot = NonNullable<RenderedPage['screenshot']>;

/**
 * The whole viewport at its own size, as a reader saw it: what replay is compared with pixel for pixel.
 * Half the size took 61 ms and 38 KB a page (a text page, WebP at 60), this 114 ms and 122 KB.
 */
const CLIP = { x: 0, y: 0, width: VIEWPORT.width, height: VIEWPORT.height, scale: 1 };

/** The WebP quality screenshots are kept at; replay QA takes its pictures the same way, to compare like with like. */
export const SCREENSHOT_QUALITY = 60;

async function capture(session: CDPSession, format: 'webp' | 'png', ms: number): Promise<Screenshot | undefined> {
  const shot = await bounded(
    session
      .send('Page.captureScreenshot', format === 'webp' ? { format, quality: SCREENSHOT_QUALITY, clip: CLIP } : { format, clip: CLIP })
      .catch(() => undefined),
    ms,
    TIMED_OUT,
  );
  if (shot === TIMED_OUT || !shot?.data) return undefined;
  return { type: format === 'webp' ? 'image/webp' : 'image/png', data: Buffer.from(shot.data, 'base64') };
}

/** The viewport as a 1280x800 WebP (PNG where WebP fails); undefined if the page would not paint within `ms`. */
export async function takeScreenshot(session: CDPSession, ms: number): Promise<Screenshot | undefined> {
  return (await capture(session, 'webp', ms)) ?? (await capture(session, 'png', ms));
}
