import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Request } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it. Nothing is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Says once, visibly, why a browser test file is skipped, and how to run it. */
export function noticeIfNoBrowser(file: string): void {
  if (!HAS_CHROMIUM)
    console.log(
      `${file}: skipping the browser tests: Chromium is not installed (apt-get install chromium; they drive /usr/bin/chromium through playwright-core)`,
    );
}

/**
 * Chromium with its own network kept to 127.0.0.1: every host name but 127.0.0.1 fails to resolve,
 * and the background services that phone home are off, so a test can never reach another address.
 * With `proxy` (a logging proxy's URL, test/support/logging-proxy.ts), every request goes through
 * it, loopback ones included, so the proxy sees each host a page reached for, resolvable or not.
 */
export async function launchChromium(options: { proxy?: string } = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      ...(options.proxy ? [`--proxy-server=${options.proxy}`, '--proxy-bypass-list=<-loopback>'] : []),
      // `*.localhost` names resolve to loopback inside Chromium itself, never through DNS: serve's per-site replay hosts.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE *.localhost',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-domain-reliability',
      '--disable-sync',
      '--no-first-run',
      '--no-default-browser-check',
    ],
  });
}

/** Every request any page of `context` starts (frames, fetches, subresources), in order. */
export function recordRequests(context: BrowserContext): { urls: string[]; outside(origins: Array<string | RegExp>): string[] } {
  const urls: string[] = [];
  context.on('request', (request: Request) => {
    urls.push(request.url());
  });
  return {
    urls,
    outside: (origins) =>
      urls.filter(
        (url) =>
          !url.startsWith('data:') &&
          !url.startsWith('blob:') &&
          !origins.some((origin) =>
            typeof origin === 'string' ? new URL(url).origin === new URL(origin).origin : origin.test(new URL(url).origin),
          ),
      ),
  };
}
