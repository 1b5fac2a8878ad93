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

// Run in the page (a string: this code is not compiled against the DOM). Answers after the next two
// frames, once what the scroll set off (an IntersectionObserver, a scroll listener) has had its turn.
const SCROLL_ONE_SCREEN = `new Promise((resolve) => {
  const root = document.scrollingElement || document.documentElement;
  window.scrollBy(0, window.innerHeight);
  const bottom = () => window.scrollY + window.innerHeight >= root.scrollHeight - 2;
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(bottom())));
})`;

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
  const network = new NetworkWatch(page);
  try {
    return await load(page, url, caps, network);
  } finally {
    // The tab goes on to other pages: it stops counting this one's requests.
    network.dispose(page);
  }
}

async function load(page: Page, url: string, caps: BehaviourCaps, network: NetworkWatch): Promise<RenderCap[]> {
  const capped = new Set<RenderCap>();
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
  const before = network.requests;
  let bottom = false;
  let answered = true;
  for (let screen = 0; screen < caps.maxScrollScreens && Date.now() < deadline; screen += 1) {
    const answer = await scrollOneScreen(page, deadline - Date.now());
    if (answer === undefined) {
      answered = false;
      break;
    }
    // A screen that set something loading (lazy images, the next page of a feed) is let finish first;
    // a static page scrolls through without waiting.
    if (network.busy() && !(await network.quiet(Math.max(0, deadline - Date.now())))) {
      // The network is the bound met here: scrolling stopped waiting for it, at the bottom or not.
      capped.add('network-idle');
      bottom = answer;
      break;
    }
    if (answer) {
      // The bottom may grow once seen (a feed): look again.
      const still = await scrollOneScreen(page, Math.max(0, deadline - Date.now()));
      if (still !== false) {
        bottom = still === true;
        break;
      }
    }
  }
  if (!bottom) capped.add('scroll');
  // A page that did not answer a scroll is stuck in a script: nothing more will settle.
  if (!answered) return [...capped];
  // Only a scroll that set requests off needs the network to settle again.
  if (network.requests !== before && !(await network.quiet(Math.min(SETTLE_MS, caps.networkIdleMs)))) capped.add('network-idle');
  return [...capped];
}
