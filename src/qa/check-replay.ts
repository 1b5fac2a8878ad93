import type { Frame } from 'playwright-core';
import { SCREENSHOT_QUALITY, VIEWPORT } from '../browser/index.js';
import { extractPage } from '../html/index.js';
import type { ImageDecoder } from './decode-image.js';
import { pixelDifference } from './pixel-difference.js';
import type { QaMeasures } from './qa-score.js';
import type { ReplayTab } from './replay-tab.js';
import { textSimilarity } from './text-similarity.js';

/** What was stored at capture: the picture and the text, each if any. */
export interface CaptureMaterial {
  screenshot?: { type: string; data: Buffer };
  text?: string;
}

/** How long the page's load event is waited for: a request that never ends leaves the page to be measured as it is. */
const LOAD_MS = 10_000;
/** A replay is taken as loaded once its frame has asked for nothing new for this long... */
const QUIET_MS = 500;
/** ... or after this long, whichever comes first: a page that polls forever is measured as it is then. */
const SETTLE_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the replayed frame has had no request in flight for QUIET_MS, at most SETTLE_MS. */
async function settle(tab: ReplayTab): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  let counted = -1;
  let quietSince = Date.now();
  while (Date.now() < until) {
    const seen = tab.loaded.size + tab.failed.size + tab.pending.size;
    if (tab.pending.size > 0 || seen !== counted) {
      counted = seen;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= QUIET_MS) return;
    await sleep(100);
  }
}

/**
 * Loads the UI's frame page for the capture, as a reader opens it, and gives its replay frame the
 * viewport the capture was rendered in: the bar above the frame is measured on the first load, the
 * tab made that much taller, and the page loaded again.
 */
async function openReplay(tab: ReplayTab, frameUrl: string): Promise<{ frame: Frame; box: { x: number; y: number } }> {
  for (;;) {
    tab.reset();
    // The time limit is the caller's, over the whole check.
    await tab.page.goto(frameUrl, { waitUntil: 'domcontentloaded', timeout: 0 });
    await tab.page.waitForLoadState('load', { timeout: LOAD_MS }).catch(() => undefined);
    const element = await tab.page.$('iframe#replay');
    const frame = await element?.contentFrame();
    const box = await element?.boundingBox();
    if (!element || !frame || !box) throw new Error('the frame page has no replay frame');
    if (tab.sized || (Math.round(box.width) === VIEWPORT.width && Math.round(box.height) === VIEWPORT.height)) {
      tab.sized = true;
      return { frame, box };
    }
    const size = tab.page.viewportSize() ?? VIEWPORT;
    await tab.page.setViewportSize({
      width: size.width + VIEWPORT.width - Math.round(box.width),
      height: size.height + VIEWPORT.height - Math.round(box.height),
    });
    tab.sized = true;
  }
}

/**
 * Replays one capture in `tab` and measures it against what the crawl stored: the share of the
 * screenshot's pixels drawn otherwise (the replay photographed at the stored picture's size and in its
 * format, both decoded by the same browser), the similarity of the text (the replay's DOM read by the
 * crawl's own text extraction, as the crawl read the rendered page), and the frame's requests that
 * loaded and failed.
 */
export async function checkReplay(tab: ReplayTab, decoder: ImageDecoder, frameUrl: string, material: CaptureMaterial): Promise<QaMeasures> {
  const { frame, box } = await openReplay(tab, frameUrl);
  await settle(tab);
  await frame.evaluate('window.scrollTo(0, 0)').catch(() => undefined);

  let textMatch: number | null = null;
  if (material.text !== undefined) {
    const html = await frame.content();
    const replayed = extractPage(html, () => {}, { text: true }).text?.body ?? '';
    textMatch = textSimilarity(material.text, replayed);
  }

  let pixelDiff: number | null = null;
  if (material.screenshot) {
    const stored = await decoder.decode(material.screenshot.type, material.screenshot.data);
    const scale = stored.width / VIEWPORT.width;
    const clip = { x: box.x, y: box.y, width: VIEWPORT.width, height: Math.min(VIEWPORT.height, stored.height / scale), scale };
    const format = material.screenshot.type === 'image/webp' ? 'webp' : material.screenshot.type === 'image/jpeg' ? 'jpeg' : 'png';
    const shot = await tab.session.send(
      'Page.captureScreenshot',
      format === 'png' ? { format, clip } : { format, quality: SCREENSHOT_QUALITY, clip },
    );
    const replayed = await decoder.decode(material.screenshot.type, Buffer.from(shot.data, 'base64'));
    pixelDiff = pixelDifference(stored, replayed);
  }

  // Still on the wire after the wait: counted as failed, as a reader would see them missing.
  return { pixelDiff, textMatch, resourcesLoaded: tab.loaded.size, resourcesFailed: tab.failed.size + tab.pending.size };
}
