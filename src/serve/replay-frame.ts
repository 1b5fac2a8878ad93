import type { ReplayModifier } from './replay-url.js';

/**
 * How a replayed page is shown to its reader, pywb's framed replay: the top document is a page of
 * the UI origin (`/replay?url=&ts=`), the capture is in a sandboxed iframe of the replay origin.
 * The sandbox lacks `allow-popups` and `allow-top-navigation`, so the browser itself refuses the
 * capture, and every frame it creates, any new window and any navigation of the top document:
 * that, not the shim's rewriting, is what keeps an archived script from taking the reader to the
 * live web. The UI's CSP (`frame-src` this server's replay origins: the replay origin and, on loopback,
 * the archived sites' own hosts) keeps the frame itself on them, and replay's CSP does the same for the
 * frames a capture creates.
 */

/** The frame's sandbox for a replayed capture: its scripts run, on the replay origin, and can open nothing. */
export const REPLAY_SANDBOX = 'allow-scripts allow-forms allow-same-origin';

/**
 * The sandbox for a body as captured (`id_`), unrewritten, and for any replayed document that is no
 * rewritten HTML page (an SVG, say), where no shim runs: nothing runs, on an opaque origin, and a
 * document sandboxed without scripts does not follow its `<meta http-equiv=refresh>` either.
 */
export const RAW_SANDBOX = '';

/** The UI's path that shows `url` as captured near `timestamp` framed; `id_` shows the body as captured. */
export function replayFramePath(url: string, timestamp: string, modifier: ReplayModifier = ''): string {
  return `/replay?url=${encodeURIComponent(url)}&ts=${timestamp}${modifier === 'id_' ? '&raw=1' : ''}`;
}
