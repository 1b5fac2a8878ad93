import { RAW_SANDBOX, REPLAY_SANDBOX, replayFramePath } from '../replay-frame.js';
import { captureTimestamp, replayPath } from '../replay-url.js';
import { captureHref } from './format.js';
import { html } from './html.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

const TIMESTAMP = /^\d{1,14}$/;

/**
 * `/replay?url=[&ts=][&raw=1]`: the top document of a replay, on the UI origin (pywb's framed
 * replay): a bar saying what is shown, and the capture in a sandboxed frame of the replay origin
 * filling the rest (see src/serve/replay-frame.ts for what the sandbox guarantees). `raw=1` frames
 * the body as captured, where nothing runs. Without `ts`, the capture nearest now: the latest.
 * The replay origin redirects a top-level navigation to any replay path here.
 */
export function replayFramePage(context: UiContext, params: URLSearchParams): UiPage {
  const url = params.get('url');
  if (!url) throw new UiHttpError(400, 'name the archived URL: /replay?url=https://example.com/');
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new UiHttpError(400, `url must be an http or https URL, got ${url.slice(0, 80)}`);
  const ts = params.get('ts') ?? captureTimestamp(new Date().toISOString());
  if (!TIMESTAMP.test(ts)) throw new UiHttpError(400, `ts must be a capture's timestamp (YYYYMMDDhhmmss), got ${ts.slice(0, 40)}`);
  const raw = params.get('raw') === '1';
  const src = context.replayOrigin + replayPath(url, ts, raw ? 'id_' : '');
  const other = raw ? html`<a id="show-replay" href="${replayFramePath(url, ts)}">show the replay</a>` : html`<a id="show-raw" href="${replayFramePath(url, ts, 'id_')}">show the body as captured</a>`;
  const body = html`<header id="replay-bar"><a class="brand" href="/">crawlite</a> <span>${raw ? 'Body as captured of' : 'Replay of'}</span> <a id="replay-url" href="${captureHref(url)}&ts=${ts}">${url}</a> <span class="muted">near <time>${ts}</time></span> · ${other}</header>
<iframe id="replay" class="replay-view" src="${src}" sandbox="${raw ? RAW_SANDBOX : REPLAY_SANDBOX}" referrerpolicy="no-referrer" title="${raw ? 'body as captured' : 'replay'} of ${url}"></iframe>`;
  return { title: url, body, bare: true };
}
