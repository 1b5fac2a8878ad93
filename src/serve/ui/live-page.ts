import type { UiLive } from '../live-mount.js';
import { html } from './html.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

/** Milliseconds between two reads of /api/live by the page. */
export const LIVE_REFRESH_MS = 1000;

/**
 * `/live`: a running crawl, refreshed every second by its script (/assets/live.js) from /api/live, and
 * its controls. The page carries this serve process's token, which every control must send back; only
 * the UI's own pages can read it (request-guard.ts, live-guard.ts).
 */
export function livePage(context: UiContext): UiPage {
  const live: UiLive | undefined = context.live;
  if (!live) throw new UiHttpError(501, 'this server has no live page');
  const body = html`<h1>Live</h1>
<div id="live-root" data-token="${live.token}" data-refresh-ms="${LIVE_REFRESH_MS}">
<p id="live-state" class="live-state">Reading the crawl…</p>
<p id="live-error" class="error" hidden></p>
<noscript><p class="error">The live page refreshes with JavaScript, which this browser does not run here.</p></noscript>
<section id="live-controls"><h2>Controls</h2>
<p id="live-controls-note" class="muted">Each control is a request that the crawl applies within about a second; its outcome shows under Requests.</p>
<p><button type="button" id="live-pause">Pause</button> <button type="button" id="live-resume">Resume</button></p>
<form id="live-set"><label>concurrency <input id="live-concurrency" name="concurrency" type="number" min="1" max="1000" size="5"></label>
<label>per host <input id="live-per-host" name="per_host" type="number" min="1" max="1000" size="5"></label>
<label>delay (ms) <input id="live-delay" name="delay_ms" type="number" min="0" size="7"></label>
<button type="submit" id="live-set-button">Set</button></form>
<form id="live-exclude"><label>exclude URLs matching <input id="live-pattern" name="pattern" type="text" size="40" maxlength="1000" placeholder="[?&amp;]id=" spellcheck="false" autocomplete="off"></label>
<button type="submit" id="live-preview">Preview</button> <button type="button" id="live-exclude-button">Exclude</button>
<span id="live-preview-result" class="muted"></span></form>
<p id="live-sent" class="muted" aria-live="polite"></p>
</section>
<div class="grid">
<section><h2>Pages done</h2><p id="live-rate-text"></p><div id="live-rate"></div></section>
<section><h2>Requests in flight</h2><p id="live-in-flight" class="big">—</p><p id="live-settings" class="muted"></p></section>
<section><h2>Queue by host</h2><table id="live-queue"><thead><tr><th>host</th><th class="num">queued</th></tr></thead><tbody></tbody></table><p id="live-queue-total" class="muted"></p></section>
<section><h2>Errors and skips</h2><table id="live-problems"><thead><tr><th>state</th><th>reason</th><th class="num">URLs</th></tr></thead><tbody></tbody></table><p id="live-problems-note" class="muted"></p></section>
</div>
<section><h2>Live exclusions</h2><table id="live-exclusions"><thead><tr><th>pattern</th><th>added</th><th></th></tr></thead><tbody></tbody></table></section>
<section><h2>Requests</h2><table id="live-requests"><thead><tr><th class="num">#</th><th>asked</th><th>by</th><th>when</th><th>outcome</th></tr></thead><tbody></tbody></table></section>
<section><h2>Last pages stored</h2><table id="live-recent"><thead><tr><th>url</th><th class="num">status</th><th>stored</th></tr></thead><tbody></tbody></table></section>
</div>`;
  return { title: 'Live', body, scripts: ['/assets/live.js'], styles: ['/assets/live.css'] };
}
