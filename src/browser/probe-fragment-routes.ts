import type { CDPSession, Page } from 'playwright-core';
import { bounded, TIMED_OUT } from './bounded.js';
import { NetworkWatch } from './network-watch.js';

/** How long the probe may take in all: one fragment, the page's answer to it, its network going quiet. */
const PROBE_MS = 3500;
const SETTLE_MS = 1500;

// Run in the page (strings: this code is not compiled against the DOM).
/** The first in-page link's fragment that is neither a hash route (`#/`, `#!`, kept anyway) nor where the page is now. */
const IN_PAGE_FRAGMENT = `(() => {
  const here = location.href.split('#')[0];
  for (const a of document.querySelectorAll('a[href*="#"]')) {
    const href = a.href;
    const hash = href.indexOf('#');
    if (hash === -1 || href.slice(0, hash) !== here) continue;
    const fragment = href.slice(hash + 1);
    if (fragment === '' || fragment[0] === '/' || fragment[0] === '!' || '#' + fragment === location.hash) continue;
    return fragment;
  }
  return null;
})()`;
const SHOWN_TEXT = `document.body ? document.body.innerText : ''`;
// Answers once the page's own hashchange listeners have had their turn, and two frames more.
const GO_TO = (fragment: string) => `new Promise((resolve) => {
  window.addEventListener('hashchange', () => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))), 0), { once: true });
  location.hash = ${JSON.stringify(fragment)};
})`;

/** Whether the page's script listens for its URL's fragment changing (hashchange, or popstate, which a fragment change fires too). */
async function listensForFragments(session: CDPSession): Promise<boolean> {
  const objectGroup = 'crawlite-probe';
  try {
    const { result } = await session.send('Runtime.evaluate', { expression: 'window', objectGroup });
    if (!result.objectId) return false;
    const { listeners } = await session.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
    return listeners.some(({ type }) => type === 'hashchange' || type === 'popstate');
  } finally {
    await session.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => undefined);
  }
}

async function probe(page: Page, session: CDPSession): Promise<boolean> {
  if (!(await listensForFragments(session))) return false;
  const fragment = await page.evaluate<string | null>(IN_PAGE_FRAGMENT);
  if (fragment === null) return false;
  const before = await page.evaluate<string>(SHOWN_TEXT);
  const network = new NetworkWatch(page);
  try {
    // A page that does not answer the change within the wait shows nothing else there.
    if ((await bounded(page.evaluate(GO_TO(fragment)), SETTLE_MS, TIMED_OUT)) === TIMED_OUT) return false;
    // What the route fetched (its markdown, its JSON) is let arrive; a page that fetched nothing is not waited for.
    if (network.requests > 0 || network.busy()) await network.quiet(SETTLE_MS);
  } finally {
    network.dispose(page);
  }
  return (await page.evaluate<string>(SHOWN_TEXT)) !== before;
}

/** Documents remembered at most: a hash-routed app's routes are one document, asked about once. */
const MAX_REMEMBERED = 1000;

/** What the probe found for each document (its URL without fragment): its routes need not ask again. */
export class FragmentRouteMemo {
  private readonly known = new Map<string, boolean>();

  get(document: string): boolean | undefined {
    return this.known.get(document);
  }

  set(document: string, routes: boolean): void {
    if (this.known.size >= MAX_REMEMBERED) this.known.delete(this.known.keys().next().value!);
    this.known.set(document, routes);
  }
}

/**
 * Whether a rendered page is a hash-routed app whose routes are not spelt `#/` or `#!` (TiddlyWiki's
 * `#HelloThere`), as Browsertrix's page-spa scope takes every in-page link: only a page whose script
 * listens for fragment changes is asked, by going to one of its in-page links' fragments and seeing
 * whether the text it shows changed. Run last: it leaves the page at that fragment. Bounded in time;
 * false when anything fails.
 */
export async function probeFragmentRoutes(page: Page, session: CDPSession): Promise<boolean> {
  const answer = await bounded(
    probe(page, session).catch(() => false),
    PROBE_MS,
    false,
  );
  return answer;
}
