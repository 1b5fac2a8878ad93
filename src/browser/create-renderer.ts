import { CrawlStoppedError } from '../pipeline/fetch-errors.js';
import type { PageRenderer, RenderedPage, RenderJob } from '../pipeline/renderer.js';
import { RenderError } from './browser-errors.js';
import { ChromiumHost } from './chromium-host.js';
import { ByteGate } from './byte-gate.js';
import { GuardRules } from './guard-rules.js';
import { FragmentRouteMemo } from './probe-fragment-routes.js';
import { CapturedRequisites } from './captured-requisites.js';
import { type RenderGuards, renderPage, type RenderSettings } from './render-page.js';
import { resolveChromium } from './resolve-chromium.js';
import { TabQueue } from './tab-queue.js';

export interface RendererOptions {
  /** Chromium's executable; default $CRAWLITE_CHROMIUM, else /usr/bin/chromium. */
  chromium?: string;
  /** Pages rendered at once; more wait their turn, first come first served. Default 2. */
  tabs?: number;
  /** How long a page is given to fire its load event; a page that runs over is captured as it is (cap 'time'). Default 20000. */
  loadTimeoutMs?: number;
  /** How long to wait for the network to go quiet after load (cap 'network-idle'). Default 5000. */
  networkIdleMs?: number;
  /** How long scrolling to the bottom may take (cap 'scroll'). Default 5000. */
  scrollMs?: number;
  /** How many viewports down scrolling goes at most (cap 'scroll'). Default 20. */
  maxScrollScreens?: number;
  /** Chromium is replaced, between pages, after this many pages. Default 200. */
  restartAfterPages?: number;
  /** ... or once its processes together hold more than this many MiB resident (summed PSS: shared pages counted once). Default 1024. */
  restartAboveRssMb?: number;
  /** The User-Agent pages are rendered with; Chromium's own by default. */
  userAgent?: string;
  /** A response body larger than this is not captured (the page still gets it). Default 100 MiB. */
  maxBodyBytes?: number;
  /** What the bodies one page keeps may add up to; past it, what the page loads reaches it and is not kept. Default twice maxBodyBytes. */
  maxPageBytes?: number;
  /** Bodies read out of the browser at once, in bytes, across its pages (one larger reads alone). Default 128 MiB. */
  maxReadBytes?: number;
  /** Pages may send PUT, PATCH, DELETE and other writes to the site. Default false: refused and recorded. */
  allowWrites?: boolean;
  /** Take a picture of the viewport. Default true. */
  screenshot?: boolean;
}

/** The renderer, and what it tells of its browser (for a test, a progress line). */
export interface ChromiumRenderer extends PageRenderer {
  /** The running Chromium's main process, if one runs. */
  browserPid(): number | undefined;
  /** The running Chromium's resident memory in bytes, all its processes summed; 0 when none runs. */
  browserRssBytes(): number;
}

const positive = (value: number | undefined, fallback: number) =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;

/**
 * The crawl's browser: renders pages in headless Chromium (launched on the first page), capturing
 * every exchange they make. Throws BrowserMissingError at once when there is no Chromium to run.
 */
export function createRenderer(options: RendererOptions = {}): ChromiumRenderer {
  const executablePath = resolveChromium(options.chromium);
  const settings: RenderSettings = {
    loadTimeoutMs: positive(options.loadTimeoutMs, 20_000),
    networkIdleMs: positive(options.networkIdleMs, 5000),
    scrollMs: positive(options.scrollMs, 5000),
    maxScrollScreens: Math.floor(positive(options.maxScrollScreens, 20)),
    maxBodyBytes: positive(options.maxBodyBytes, 100 * 1024 * 1024),
    maxPageBytes: 0,
    allowWrites: options.allowWrites ?? false,
    screenshot: options.screenshot ?? true,
  };
  settings.maxPageBytes = positive(options.maxPageBytes, 2 * settings.maxBodyBytes);
  const guards: RenderGuards = {
    rules: new GuardRules(settings.allowWrites),
    reads: new ByteGate(positive(options.maxReadBytes, 128 * 1024 * 1024)),
    routes: new FragmentRouteMemo(),
    captured: new CapturedRequisites(),
  };
  const host = new ChromiumHost(
    {
      executablePath,
      userAgent: options.userAgent,
      restartAfterPages: Math.floor(positive(options.restartAfterPages, 200)),
      restartAboveRssBytes: positive(options.restartAboveRssMb, 1024) * 1024 * 1024,
    },
    guards.rules,
  );
  const tabs = new TabQueue(Math.floor(positive(options.tabs, 2)));
  let closed = false;

  return {
    async render(job: RenderJob, signal: AbortSignal): Promise<RenderedPage> {
      if (closed) throw new RenderError(job.url, 'the renderer is closed');
      const giveBack = await tabs.take(signal, () => new CrawlStoppedError(job.url));
      try {
        if (signal.aborted) throw new CrawlStoppedError(job.url);
        const instance = await host.acquire(job.url);
        try {
          return await renderPage(instance, job, signal, settings, guards);
        } finally {
          host.release(instance);
        }
      } finally {
        giveBack();
      }
    },
    async close(): Promise<void> {
      closed = true;
      tabs.refuseAll(new RenderError('(queued page)', 'the renderer is closed'));
      await host.close();
    },
    browserPid: () => (host.instance?.alive ? host.instance.pid : undefined),
    browserRssBytes: () => (host.instance?.alive ? host.instance.rssBytes() : 0),
  };
}
