import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Set to a folder (docs/screenshots) to keep a screenshot of UI pages for the README. */
const SCREENSHOTS = process.env.CRAWLITE_SCREENSHOTS;

/** Writes `name.png` of the whole page at the README's width, when CRAWLITE_SCREENSHOTS names a folder. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewportSize({ width: 960, height: 640 });
  writeFileSync(join(SCREENSHOTS, `${name}.png`), await page.screenshot({ fullPage: true }));
}
