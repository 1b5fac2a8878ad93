import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { childWithArgument } from './process-tree.js';

/** The viewport pages are laid out, scrolled and photographed in. */
export const VIEWPORT = { width: 1280, height: 800 };

export interface LaunchedChromium {
  browser: Browser;
  /** The one context this browser's pages open in: its cookies and cache serve every page. */
  context: BrowserContext;
  /** Chromium's main process; undefined if it could not be found in /proc. */
  pid: number | undefined;
}

/**
 * Flags that keep Chromium to the pages it is given: no background requests of its own, and every
 * frame in its page's process, so the page's one DevTools session sees every request the page makes.
 */
export function chromiumArgs(marker: string): string[] {
  return [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    // Not --disable-features=IsolateOrigins,site-per-process: a second --disable-features replaces
    // playwright-core's own list, and site-per-process is no feature name (frames of another site
    // kept their own process with it). This switch turns site isolation off.
    '--disable-site-isolation-trials',
    '--mute-audio',
    '--hide-scrollbars',
    // Ignored by Chromium; finds its process in /proc, which playwright-core does not tell.
    marker,
  ];
}

/**
 * Starts Chromium through playwright-core, which talks to it over a pipe: Chromium quits when the
 * pipe closes, so it goes with this process however this process ends (kill -9 included).
 */
export async function launchChromium(executablePath: string, userAgent: string | undefined): Promise<LaunchedChromium> {
  const { chromium } = await import('playwright-core');
  const marker = `--crawlite-renderer=${randomUUID()}`;
  const browser = await chromium.launch({
    executablePath,
    args: chromiumArgs(marker),
    // Chromium's popup blocker stays on: a window a page opens is a page no capture watches, whose requests nothing admits.
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    // The sandbox where it can run (not as root); playwright-core turns it off unless asked.
    chromiumSandbox: process.getuid?.() !== 0,
    timeout: 30_000,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const pid = childWithArgument(marker);
  try {
    const context = await browser.newContext({
      serviceWorkers: 'block',
      viewport: VIEWPORT,
      acceptDownloads: false,
      ...(userAgent ? { userAgent } : {}),
    });
    return { browser, context, pid };
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
}
