/**
 * The browser room: the crawl's PageRenderer in headless Chromium (playwright-core drives it over
 * DevTools). Everything a rendered page fetches is captured; the page's own document comes from the crawl.
 */
export { createRenderer, type ChromiumRenderer, type RendererOptions } from './create-renderer.js';
export { BrowserMissingError, RenderError } from './browser-errors.js';
export { DEFAULT_CHROMIUM, resolveChromium } from './resolve-chromium.js';
export { launchReplayBrowser, type ReplayBrowser } from './replay-browser.js';
export { VIEWPORT } from './launch-chromium.js';
export { SCREENSHOT_QUALITY } from './take-screenshot.js';
