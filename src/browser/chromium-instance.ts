import type { BrowserTab } from './browser-tab.js';
import { processTree, startTime, treeRssBytes } from './process-tree.js';
import { type LaunchedChromium, launchChromium } from './launch-chromium.js';
import { bounded } from './bounded.js';

/** How long Chromium is given to close before its processes are killed. */
const CLOSE_MS = 10_000;

/** One launched Chromium and what lives as long as it: its context, its cache, its tabs. */
export class ChromiumInstance {
  /** Tabs left open by renders that went through, for the next ones. */
  readonly idleTabs: BrowserTab[] = [];
  pages = 0;
  inUse = 0;
  /** To be closed and replaced once its pages in use are done. */
  retiring = false;
  alive = true;
  private drainWaiters: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  private constructor(readonly launched: LaunchedChromium) {
    launched.browser.on('disconnected', () => {
      this.alive = false;
    });
  }

  static async launch(executablePath: string, userAgent: string | undefined, proxyUrl: string): Promise<ChromiumInstance> {
    return new ChromiumInstance(await launchChromium(executablePath, userAgent, proxyUrl));
  }

  /** A Chromium launched otherwise (replay's), closed as this one is. */
  static of(launched: LaunchedChromium): ChromiumInstance {
    return new ChromiumInstance(launched);
  }

  get pid(): number | undefined {
    return this.launched.pid;
  }

  /** The browser's processes' resident memory in bytes (0 when its process is unknown). */
  rssBytes(): number {
    return this.launched.pid === undefined ? 0 : treeRssBytes(this.launched.pid);
  }

  /** Resolves once no page of it is in use. */
  drained(): Promise<void> {
    if (this.inUse === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  release(): void {
    this.inUse -= 1;
    this.pages += 1;
    if (this.inUse === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  /** Closes the browser, and kills any of its processes still running after a while: none outlives this. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const pids = (this.launched.pid === undefined ? [] : processTree(this.launched.pid)).map((pid) => ({ pid, started: startTime(pid) }));
      await bounded(
        this.launched.browser.close().catch(() => undefined),
        CLOSE_MS,
        undefined,
      );
      for (const { pid, started } of pids) {
        // Only the very process seen before: its PID may be another's by now.
        if (started === undefined || startTime(pid) !== started) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already, as it should be.
        }
      }
    })();
    return this.closing;
  }
}
