import type { Page, Request } from 'playwright-core';

/**
 * How long no request may be in flight for the network to count as quiet. Playwright's 'networkidle'
 * waits 500 ms; a page's scripts ask for what they need within a frame or two of the last answer, and
 * every page pays this wait twice at most, so it is kept short.
 */
const QUIET_FOR_MS = 300;
const POLL_MS = 50;

/**
 * Counts a page's requests in flight, every frame's. Unlike the 'networkidle' load state, which
 * fires once per navigation, it tells whether the page is quiet now: after a scroll, say.
 */
export class NetworkWatch {
  private readonly inFlight = new Set<Request>();
  private lastChange = Date.now();
  /** Requests the page has started so far. */
  requests = 0;

  constructor(page: Page) {
    page.on('request', this.started);
    page.on('requestfinished', this.ended);
    page.on('requestfailed', this.ended);
  }

  private readonly started = (request: Request) => this.change(() => (this.inFlight.add(request), (this.requests += 1)));
  private readonly ended = (request: Request) => this.change(() => this.inFlight.delete(request));

  /** Stops counting: the tab goes on to another page. */
  dispose(page: Page): void {
    page.off('request', this.started);
    page.off('requestfinished', this.ended);
    page.off('requestfailed', this.ended);
  }

  /** Whether a request is in flight now. */
  busy(): boolean {
    return this.inFlight.size > 0;
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
