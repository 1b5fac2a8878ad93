import type { Page } from 'playwright-core';
import type { RenderCap } from '../pipeline/renderer.js';
import { bounded, TIMED_OUT } from './bounded.js';
import { NetworkWatch } from './network-watch.js';

export interface BehaviourCaps {
  loadTimeoutMs: number;
  networkIdleMs: number;
  scrollMs: number;
  maxScrollScreens: number;
}

/** How long the page is given to go quiet again once scrolled. */
const SETTLE_MS = 2000;
/** A pause between screens, for what a scroll sets off (lazy images, infinite feeds) to start. */
const SCREEN_PAUSE_MS = 150;

// Run in the page (a string: this code is not compiled against the DOM).
const SCROLL_ONE_SCREEN = `(() => {
  const root = document.scrollingElement || document.documentElement;
  window.scrollBy(0, window.innerHeight);
  return window.scrollY + window.innerHeight >= root.scrollHeight - 2;
})()`;

/** Scrolls a screen down; true once the bottom is in view. Undefined if the page did not answer. */
async function scrollOneScreen(page: Page, ms: number): Promise<boolean | undefined> {
  const outcome = await bounded(
    page.evaluate<boolean>(SCROLL_ONE_SCREEN).catch((): typeof TIMED_OUT => TIMED_OUT),
    ms,
    TIMED_OUT,
  );
  return outcome === TIMED_OUT ? undefined : outcome;
}

/**
 * Loads the page as a reader would: until loaded, until the network is quiet, scrolled to the
 * bottom a screen at a time (what loads when seen loads), quiet again. Each step has its cap, so
 * a page that never goes quiet ends at them; the caps it ran into are returned.
 */
export async function loadLikeAReader(page: Page, url: string, caps: BehaviourCaps): Promise<RenderCap[]> {
  const capped = new Set<RenderCap>();
  const network = new NetworkWatch(page);
  const loaded = await bounded(
    page.goto(url, { waitUntil: 'load', timeout: caps.loadTimeoutMs }).then(
      () => true,
      (error: unknown) => error,
    ),
    caps.loadTimeoutMs + 1000,
    false,
  );
  if (loaded !== true) {
    // A timeout is a cap, once the document is in; a navigation that failed outright is not.
    if (loaded !== false && !(loaded instanceof Error && loaded.name === 'TimeoutError')) throw loaded;
    capped.add('time');
  }
  if (!(await network.quiet(caps.networkIdleMs))) capped.add('network-idle');

  const deadline = Date.now() + caps.scrollMs;
  let bottom = false;
  let answered = true;
  for (let screen = 0; screen < caps.maxScrollScreens && Date.now() < deadline; screen += 1) {
    const answer = await scrollOneScreen(page, deadline - Date.now());
    if (answer === undefined) {
      answered = false;
      break;
    }
    if (answer) {
      // The bottom may grow once seen (a feed): look again after the pause.
      await new Promise((resolve) => setTimeout(resolve, SCREEN_PAUSE_MS));
      const still = await scrollOneScreen(page, Math.max(0, deadline - Date.now()));
      if (still !== false) {
        bottom = still === true;
        break;
      }
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, SCREEN_PAUSE_MS));
  }
  if (!bottom) capped.add('scroll');
  // A page that did not answer a scroll is stuck in a script: nothing more will settle.
  if (!answered) return [...capped];
  if (!(await network.quiet(Math.min(SETTLE_MS, caps.networkIdleMs)))) capped.add('network-idle');
  return [...capped];
}
