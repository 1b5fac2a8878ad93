import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { bounded } from './bounded.js';

/**
 * A page kept open from one render to the next, with its DevTools session. Chromium spends more on
 * opening a tab than on loading most pages into it (measured on the Python docs: about 1.3 s of the
 * browser process's CPU per new tab, against 0.15 s per page loaded into a tab already open).
 */
export interface BrowserTab {
  page: Page;
  session: CDPSession;
}

/** A new tab: dialogs dismissed and popups shut for every page it shows. */
export async function openTab(context: BrowserContext): Promise<BrowserTab> {
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  // Any window that got past the popup blocker is shut at once.
  page.on('popup', (popup) => void popup.close({ runBeforeUnload: false }).catch(() => undefined));
  return { page, session: await context.newCDPSession(page) };
}

/** The id of the tab's main frame now: the one frame answered with the job's document. */
export async function mainFrameOf(tab: BrowserTab): Promise<string> {
  const { frameTree } = await tab.session.send('Page.getFrameTree');
  return frameTree.frame.id;
}

/** Leaves the tab's page for an empty one, so nothing of it runs on; false if it would not go within `ms`. */
export function emptyTab(tab: BrowserTab, ms: number): Promise<boolean> {
  return bounded(
    tab.page.goto('about:blank').then(
      () => true,
      () => false,
    ),
    ms,
    false,
  );
}
