import type { CDPSession } from 'playwright-core';
import type { RenderedPage } from '../pipeline/renderer.js';
import { bounded, TIMED_OUT } from './bounded.js';

type Screenshot = NonNullable<RenderedPage['screenshot']>;

async function capture(session: CDPSession, format: 'webp' | 'png', ms: number): Promise<Screenshot | undefined> {
  const shot = await bounded(
    session.send('Page.captureScreenshot', format === 'webp' ? { format, quality: 60 } : { format }).catch(() => undefined),
    ms,
    TIMED_OUT,
  );
  if (shot === TIMED_OUT || !shot?.data) return undefined;
  return { type: format === 'webp' ? 'image/webp' : 'image/png', data: Buffer.from(shot.data, 'base64') };
}

/** The viewport as WebP (PNG where WebP fails); undefined if the page would not paint within `ms`. */
export async function takeScreenshot(session: CDPSession, ms: number): Promise<Screenshot | undefined> {
  return (await capture(session, 'webp', ms)) ?? (await capture(session, 'png', ms));
}
