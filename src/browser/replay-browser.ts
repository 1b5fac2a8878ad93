import { randomUUID } from 'node:crypto';
import type { BrowserContext } from 'playwright-core';
import { ChromiumInstance } from './chromium-instance.js';
import { quietChromiumArgs, VIEWPORT } from './launch-chromium.js';
import { childWithArgument } from './process-tree.js';

/** A Chromium that replays an archive served on this machine, and reaches nothing else. */
export interface ReplayBrowser {
  /** Where its pages open: service workers blocked, the capture's viewport, nothing outside `reaches`. */
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts Chromium for replay: the flags of the crawl's Chromium, but no proxy (none of the system's
 * either) and no host name resolved but loopback ones (`*.localhost` too, where replay may give each
 * archived origin a host). Every request and WebSocket a page opens is checked against `reaches`
 * and refused otherwise, so an address written as digits is refused as a name is.
 */
export async function launchReplayBrowser(executablePath: string, reaches: (url: URL) => boolean): Promise<ReplayBrowser> {
  const { chromium } = await import('playwright-core');
  const marker = `--crawlite-replay=${randomUUID()}`;
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-proxy-server',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE *.localhost',
      ...quietChromiumArgs(marker),
    ],
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    // The sandbox where it can run (not as root); playwright-core turns it off unless asked.
    chromiumSandbox: process.getuid?.() !== 0,
    timeout: 30_000,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const pid = childWithArgument(marker);
  const context = await browser
    .newContext({ serviceWorkers: 'block', viewport: VIEWPORT, deviceScaleFactor: 1, acceptDownloads: false })
    .catch(async (error: unknown) => {
      await browser.close().catch(() => undefined);
      throw error;
    });
  const instance = ChromiumInstance.of({ browser, context, pid });
  try {
    const allowed = (href: string) => {
      try {
        return reaches(new URL(href));
      } catch {
        return false;
      }
    };
    await context.route(
      (url) => !allowed(url.href),
      (route) => route.abort('blockedbyclient'),
    );
    await context.routeWebSocket(
      (url) => !allowed(url.href),
      (socket) => socket.close(),
    );
    return { context, close: () => instance.close() };
  } catch (error) {
    await instance.close();
    throw error;
  }
}
