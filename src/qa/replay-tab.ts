import type { BrowserContext, CDPSession, Page, Request } from 'playwright-core';

/** A tab replaying one page after another, with its DevTools session and what the page in it requested. */
export class ReplayTab {
  /** Requests of the replayed frame (not of the frame page around it) that answered below 400. */
  readonly loaded = new Set<Request>();
  /** ... that answered 400 or more, or got no answer (refused, cut, blocked). */
  readonly failed = new Set<Request>();
  readonly pending = new Set<Request>();
  /** The viewport that gives the replay frame the capture's viewport (the bar above takes some), once measured. */
  sized = false;

  private constructor(
    readonly page: Page,
    readonly session: CDPSession,
  ) {
    const ofReplay = (request: Request) => {
      try {
        return request.frame() !== page.mainFrame();
      } catch {
        // A worker's request has no frame: the replayed page's all the same.
        return true;
      }
    };
    page.on('request', (request) => {
      if (ofReplay(request)) this.pending.add(request);
    });
    page.on('response', (response) => {
      const request = response.request();
      const status = response.status();
      // A redirect is a step: the request it leads to is counted.
      if (!this.pending.delete(request) || (status >= 300 && status < 400)) return;
      (status >= 400 ? this.failed : this.loaded).add(request);
    });
    page.on('requestfailed', (request) => {
      if (!ofReplay(request)) return;
      this.pending.delete(request);
      this.loaded.delete(request);
      this.failed.add(request);
    });
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    page.on('popup', (popup) => void popup.close({ runBeforeUnload: false }).catch(() => undefined));
  }

  static async open(context: BrowserContext): Promise<ReplayTab> {
    const page = await context.newPage();
    return new ReplayTab(page, await context.newCDPSession(page));
  }

  /** Forgets the requests counted so far: the next page's start. */
  reset(): void {
    this.loaded.clear();
    this.failed.clear();
    this.pending.clear();
  }

  close(): Promise<void> {
    return this.page.close({ runBeforeUnload: false }).catch(() => undefined);
  }
}
