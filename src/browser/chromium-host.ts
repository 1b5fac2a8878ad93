import { RenderError } from './browser-errors.js';
import { ChromiumInstance } from './chromium-instance.js';
import { GuardProxy } from './guard-proxy.js';
import type { GuardRules } from './guard-rules.js';

export interface HostLimits {
  executablePath: string;
  userAgent: string | undefined;
  restartAfterPages: number;
  restartAboveRssBytes: number;
}

/**
 * Keeps one Chromium for the renders: launched on first use, and replaced, between pages, once it
 * rendered enough pages, grew past its memory bound, or died.
 */
export class ChromiumHost {
  private current: ChromiumInstance | undefined;
  /** Acquisitions one at a time: two renders never launch two browsers. */
  private turn: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The proxy every browser of the crawl sends its traffic through; started with the first. */
  private proxy: Promise<GuardProxy> | undefined;

  constructor(
    private readonly limits: HostLimits,
    private readonly rules: GuardRules,
  ) {}

  get instance(): ChromiumInstance | undefined {
    return this.current;
  }

  /** A live browser to render one page in; give it back with release(). */
  acquire(url: string): Promise<ChromiumInstance> {
    const next = this.turn.then(() => this.acquireNow(url));
    this.turn = next.catch(() => undefined);
    return next;
  }

  release(instance: ChromiumInstance): void {
    instance.release();
    if (instance.pages >= this.limits.restartAfterPages || !instance.alive) instance.retiring = true;
    else if (instance.rssBytes() > this.limits.restartAboveRssBytes) instance.retiring = true;
  }

  /** Closes the browser now (renders in it fail) and launches none again. */
  async close(): Promise<void> {
    this.closed = true;
    await this.current?.close();
    await this.turn;
    await this.current?.close();
    await (await this.proxy?.catch(() => undefined))?.close();
  }

  private async acquireNow(url: string): Promise<ChromiumInstance> {
    const old = this.current;
    if (old && (old.retiring || !old.alive)) {
      // Between pages: the tabs still open finish first.
      await old.drained();
      await old.close();
      if (this.current === old) this.current = undefined;
    }
    if (this.closed) throw new RenderError(url, 'the renderer is closed');
    if (!this.current) {
      let launched: ChromiumInstance;
      try {
        this.proxy ??= GuardProxy.start(this.rules);
        const proxy = await this.proxy;
        launched = await ChromiumInstance.launch(this.limits.executablePath, this.limits.userAgent, proxy.url);
      } catch (error) {
        throw new RenderError(
          url,
          `Chromium did not start (${this.limits.executablePath}): ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}`,
          { cause: error },
        );
      }
      this.current = launched;
      if (this.closed) {
        await launched.close();
        throw new RenderError(url, 'the renderer is closed');
      }
    }
    this.current.inUse += 1;
    return this.current;
  }
}
