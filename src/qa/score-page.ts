import type { BrowserContext } from 'playwright-core';
import type { QaCheck } from '../storage/writer/index.js';
import { checkReplay, type CaptureMaterial } from './check-replay.js';
import type { ImageDecoder } from './decode-image.js';
import { qaScore, type QaMeasures } from './qa-score.js';
import { ReplayTab } from './replay-tab.js';

/** One page to score: where it was captured, and what was stored then. */
export interface PageToScore {
  urlId: number;
  url: string;
  fetchedAt: string;
  material: CaptureMaterial;
}

/** What scoring a page needs besides the page: the tabs' browser, the decoder, the UI to open replays on, the time limit. */
export interface ScoringPlace {
  context: BrowserContext;
  decoder: ImageDecoder;
  /** `http://127.0.0.1:PORT/`, the UI of the serve the replays come from. */
  uiUrl: string;
  pageTimeoutMs: number;
}

/** The browser went away while a page was scored: no score of the page's own. */
export class BrowserGone extends Error {}

const NOTHING: QaMeasures = { pixelDiff: null, textMatch: null, resourcesLoaded: 0, resourcesFailed: 0 };

/** The capture's second, as the frame page's `ts` takes it. */
const timestampOf = (fetchedAt: string) => fetchedAt.replace(/\D/g, '').slice(0, 14);

/**
 * Scores one page in `tab` (a new one when none is given) within the time limit, and returns its row
 * and the tab for the next page: the same one, or none when the page failed (whatever it was doing
 * goes with its tab). A page that could not be measured is scored 0, with why. Throws BrowserGone if
 * the browser quit, so that no page is scored for the machine's fault.
 */
export async function scorePage(
  place: ScoringPlace,
  page: PageToScore,
  tab: ReplayTab | undefined,
): Promise<{ check: QaCheck; tab: ReplayTab | undefined }> {
  const gone = (cause: unknown) =>
    place.context.browser()?.isConnected()
      ? undefined
      : new BrowserGone(cause instanceof Error ? cause.message.split('\n', 1)[0] : String(cause));
  let timer: NodeJS.Timeout | undefined;
  let measures = NOTHING;
  let error: string | null = null;
  try {
    tab ??= await ReplayTab.open(place.context);
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`replay did not finish within ${place.pageTimeoutMs} ms`)), place.pageTimeoutMs);
    });
    const frameUrl = `${place.uiUrl}replay?url=${encodeURIComponent(page.url)}&ts=${timestampOf(page.fetchedAt)}`;
    measures = await Promise.race([checkReplay(tab, place.decoder, frameUrl, page.material), limit]);
  } catch (cause) {
    const quit = gone(cause);
    if (quit) throw quit;
    error = cause instanceof Error ? cause.message.split('\n', 1)[0]! : String(cause);
    await tab?.close();
    tab = undefined;
  } finally {
    clearTimeout(timer);
  }
  const check = {
    urlId: page.urlId,
    fetchedAt: page.fetchedAt,
    ...measures,
    score: error ? 0 : qaScore(measures),
    error,
    checkedAt: new Date().toISOString(),
  };
  return { check, tab };
}
