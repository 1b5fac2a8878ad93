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
 * Flags that keep Chromium to the pages it is given. Everything it sends goes through the crawl's
 * guard proxy, loopback included (Chromium bypasses a proxy for loopback unless told `<-loopback>`),
 * and it resolves no host name itself: the proxy resolves, checks and connects. WebRTC may not send
 * UDP around the proxy, and QUIC (which no proxy carries) is off. The background services that
 * have switches of their own are off; what is left of Chromium's own traffic ends at the proxy.
 * Every frame runs in its page's process, so the page's DevTools session sees what the page fetches.
 */
export function chromiumArgs(marker: string, proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    // The proxy's own address is the one thing not mapped away.
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ...quietChromiumArgs(marker),
  ];
}

/** The flags every Chromium crawlite runs has, whatever its network: no traffic of its own, no UDP or QUIC, one process per page. */
export function quietChromiumArgs(marker: string): string[] {
  return [
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--safebrowsing-disable-auto-update',
    '--no-pings',
    '--disable-default-apps',
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
export async function launchChromium(executablePath: string, userAgent: string | undefined, proxyUrl: string): Promise<LaunchedChromium> {
  const { chromium } = await import('playwright-core');
  const marker = `--crawlite-renderer=${randomUUID()}`;
  const browser = await chromium.launch({
    executablePath,
    args: chromiumArgs(marker, proxyUrl),
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
