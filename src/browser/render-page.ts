import { CrawliteError } from '../crawlite-error.js';
import { CrawlStoppedError } from '../pipeline/fetch-errors.js';
import type { RenderedPage, RenderJob } from '../pipeline/renderer.js';
import { bounded, TIMED_OUT } from './bounded.js';
import { RenderError } from './browser-errors.js';
import { emptyTab, mainFrameOf, openTab, type BrowserTab } from './browser-tab.js';
import type { ByteGate } from './byte-gate.js';
import { PageCapture } from './capture-exchanges.js';
import type { ChromiumInstance } from './chromium-instance.js';
import type { GuardRules } from './guard-rules.js';
import { servedFromLocalNetwork } from './local-network.js';
import { type BehaviourCaps, loadLikeAReader } from './page-behaviours.js';
import { takeScreenshot } from './take-screenshot.js';
import { type FragmentRouteMemo, probeFragmentRoutes } from './probe-fragment-routes.js';
import type { CapturedRequisites } from './captured-requisites.js';
import { documentOf } from '../url/index.js';

export interface RenderSettings extends BehaviourCaps {
  maxBodyBytes: number;
  /** What the bodies one page keeps may add up to. */
  maxPageBytes: number;
  allowWrites: boolean;
  screenshot: boolean;
}

/**
 * What all renders share, whichever browser runs them: the network's rules (the guard proxy asks them),
 * the bound on bodies being read, what each document's fragments do, what was captured.
 */
export interface RenderGuards {
  rules: GuardRules;
  reads: ByteGate;
  routes: FragmentRouteMemo;
  captured: CapturedRequisites;
}

/** How long a page is given for each last step: its HTML, its picture, closing (a page stuck in a script answers none). */
const STEP_MS = 3000;
const SCROLL_BACK_MS = 1000;

async function serialise(page: BrowserTab['page'], url: string): Promise<string> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const html = await bounded(
      page.content().catch(() => undefined),
      STEP_MS,
      TIMED_OUT,
    );
    if (html === TIMED_OUT) throw new RenderError(url, `the page did not answer within ${STEP_MS} ms`);
    if (html !== undefined) return html;
    // Navigating at that moment (a script moved it on): read it once it is there.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new RenderError(url, 'the page kept navigating');
}

/**
 * Renders one job in a tab of `instance` (one left open by an earlier render, else a new one): loads
 * it as a reader would, with every exchange captured, then reads its DOM and its picture. Rejects
 * with CrawlStoppedError once `signal` aborts, with RenderError if the page or the browser crashes.
 * A tab whose render went through is emptied and kept for the next; any other is closed.
 */
export async function renderPage(
  instance: ChromiumInstance,
  job: RenderJob,
  signal: AbortSignal,
  settings: RenderSettings,
  guards: RenderGuards,
): Promise<RenderedPage> {
  if (signal.aborted) throw new CrawlStoppedError(job.url);
  // From here to the end of the render, the proxy lets through what this page may reach.
  const leave = guards.rules.enter(job);
  const { browser, context } = instance.launched;
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  failed.catch(() => undefined);
  const onAbort = () => fail(new CrawlStoppedError(job.url));
  const onDisconnect = () => fail(new RenderError(job.url, 'the browser crashed'));
  signal.addEventListener('abort', onAbort, { once: true });
  browser.on('disconnected', onDisconnect);
  if (!browser.isConnected()) onDisconnect();

  let tab: BrowserTab | undefined;
  let capture: PageCapture | undefined;
  let over = false;
  let rendered = false;
  const onCrash = () => fail(new RenderError(job.url, 'the page crashed'));
  const work = async (): Promise<RenderedPage> => {
    if (servedFromLocalNetwork(job)) await context.grantPermissions(['local-network-access'], { origin: new URL(job.url).origin });
    const opened = instance.idleTabs.pop() ?? (await openTab(context));
    // Taken after the render was given up: nobody else will close it.
    if (over) {
      void opened.page.close({ runBeforeUnload: false }).catch(() => undefined);
      throw new CrawlStoppedError(job.url);
    }
    tab = opened;
    const { page, session } = tab;
    page.on('crash', onCrash);
    capture = new PageCapture(session, {
      job,
      mainFrameId: await mainFrameOf(tab),
      captured: guards.captured,
      maxBodyBytes: settings.maxBodyBytes,
      maxPageBytes: settings.maxPageBytes,
      reads: guards.reads,
      allowWrites: settings.allowWrites,
    });
    await capture.start();
    const capped = await loadLikeAReader(page, job.url, settings);
    // The picture shows the page as it opens, not its bottom.
    await bounded(
      page.evaluate('window.scrollTo(0, 0)').catch(() => undefined),
      SCROLL_BACK_MS,
      undefined,
    );
    const html = await serialise(page, job.url);
    const screenshot = settings.screenshot ? await takeScreenshot(session, STEP_MS) : undefined;
    if (settings.screenshot && !screenshot) capped.push('screenshot');
    // Last: it leaves the page at another fragment. What that fragment loads is this page's capture.
    const document = documentOf(job.url);
    let fragmentRoutes = guards.routes.get(document);
    if (fragmentRoutes === undefined) guards.routes.set(document, (fragmentRoutes = await probeFragmentRoutes(page, session)));
    const exchanges = capture.finish();
    rendered = true;
    const blocked = [...capture.blocked];
    for (const refused of leave()) if (!blocked.some(({ url }) => url === refused.url)) blocked.push(refused);
    const navigations = [...capture.navigations];
    return {
      html,
      exchanges,
      blocked,
      ...(navigations.length ? { navigations } : {}),
      ...(screenshot ? { screenshot } : {}),
      capped,
      ...(fragmentRoutes ? { fragmentRoutes } : {}),
    };
  };

  try {
    return await Promise.race([work(), failed]);
  } catch (error) {
    // Nothing of this page is stored: what it captured may be captured again.
    capture?.forget();
    if (signal.aborted) throw new CrawlStoppedError(job.url);
    if (error instanceof CrawliteError) throw error;
    throw new RenderError(
      job.url,
      browser.isConnected() ? (error instanceof Error ? error.message.split('\n', 1)[0]! : String(error)) : 'the browser crashed',
      { cause: error },
    );
  } finally {
    over = true;
    leave();
    capture?.finish();
    signal.removeEventListener('abort', onAbort);
    browser.off('disconnected', onDisconnect);
    const used = tab as BrowserTab | undefined;
    used?.page.off('crash', onCrash);
    // A tab that rendered its page, and leaves it, serves the next; its capture stops once nothing of the page runs.
    if (used && rendered && browser.isConnected() && (await emptyTab(used, STEP_MS))) {
      capture?.detach();
      instance.idleTabs.push(used);
    } else if (used) {
      capture?.detach();
      const closed = await bounded(
        used.page.close({ runBeforeUnload: false }).then(
          () => true,
          () => true,
        ),
        STEP_MS,
        false,
      );
      // A page that would not close holds its process: the browser goes once its other pages are done.
      if (!closed) instance.retiring = true;
    }
  }
}
