import type { Page, Request } from 'playwright-core';

/** How long no request may be in flight for the network to count as quiet (Playwright's 'networkidle' waits as long). */
const QUIET_FOR_MS = 500;
const POLL_MS = 50;

/**
 * Counts a page's requests in flight, every frame's. Unlike the 'networkidle' load state, which
 * fires once per navigation, it tells whether the page is quiet now: after a scroll, say.
 */
export class NetworkWatch {
  private readonly inFlight = new Set<Request>();
  private lastChange = Date.now();

  constructor(page: Page) {
    page.on('request', (request) => this.change(() => this.inFlight.add(request)));
    page.on('requestfinished', (request) => this.change(() => this.inFlight.delete(request)));
    page.on('requestfailed', (request) => this.change(() => this.inFlight.delete(request)));
  }

  /** Resolves true once nothing was in flight for a while, false if that did not happen within `ms`. */
  async quiet(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const now = Date.now();
      if (this.inFlight.size === 0 && now - this.lastChange >= QUIET_FOR_MS) return true;
      if (now >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, deadline - now)));
    }
  }

  private change(apply: () => unknown): void {
    apply();
    this.lastChange = Date.now();
  }
}
