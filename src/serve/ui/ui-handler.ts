import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { sendReply } from '../send-reply.js';
import { captureFactsApi } from './capture-facts-api.js';
import { capturePage, requestedCapture } from './capture-page.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { LIVE_POSTS, liveRefusal, liveSnapshot, livePost } from './live-api.js';
import { livePage } from './live-page.js';
import { overviewPage } from './overview-page.js';
import { qaPage } from './qa-page.js';
import { replayFramePage } from './replay-frame-page.js';
import { refusedFromElsewhere } from './request-guard.js';
import { screenshotImage } from './screenshot-image.js';
import { changesPage } from './changes-page.js';
import { searchPage } from './search-page.js';
import { sqlDownload } from './sql-download.js';
import { sqlPage } from './sql-page.js';
import { staticAsset } from './static-assets.js';
import { addressesOf, UiHttpError, type UiContext, type UiPage } from './ui-context.js';
import { urlsPage } from './urls-page.js';

/** `ranged`: answers a `Range: bytes=` request with that part (a download of a large body). */
type Body = { type: string; body: Buffer | string; headers?: Record<string, string>; ranged?: boolean };

const PAGES: Record<string, (context: UiContext, params: URLSearchParams) => UiPage | Promise<UiPage>> = {
  '/': (context) => overviewPage(context),
  '/urls': urlsPage,
  '/search': searchPage,
  '/capture': capturePage,
  '/replay': replayFramePage,
  '/sql': sqlPage,
  '/changes': changesPage,
  '/qa': qaPage,
  '/live': livePage,
};

const jsonReply = ({ status, json }: { status: number; json: unknown }): { status: number; response: Body } => ({
  status,
  response: { type: 'application/json', body: JSON.stringify(json) },
});

/** The UI's security headers: archived pages are hostile, so no inline script runs and only the replay origin is framed. */
function securityHeaders(replaySources: string): Record<string, string> {
  return {
    'content-security-policy': `default-src 'self'; frame-src ${replaySources}; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/**
 * A browser's document of the replay page asked for on another name of the UI: moved to the replay
 * page's own name (ui-context.ts), so the replayed page is same-site with the page that frames it.
 * Clients that are no browser (no Fetch Metadata) are answered where they ask.
 */
function movedToReplayPageOrigin(context: UiContext, req: IncomingMessage, path: string): boolean {
  if (path !== '/replay' || !context.replayPageOrigin || req.headers['sec-fetch-dest'] !== 'document') return false;
  return context.replayPageOrigin !== `http://${(req.headers.host ?? '').toLowerCase()}`;
}

/**
 * The UI origin's request handler: GET and HEAD only (but the live page's control POSTs, which
 * answer that page alone), pages by exact path, static files from a fixed map, a 404 page for
 * anything else and a one-line 500 page for any error (never a stack trace).
 */
export function createUiHandler(
  context: UiContext,
  allowedHosts?: ReadonlySet<string>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const archiveName = basename(context.archive.path);
  const frameSources = addressesOf(context).cspSources;
  const pageBody = (page: UiPage): Body => ({ type: 'text/html; charset=utf-8', body: layout(page, archiveName).text });
  const errorPage = (status: number, message: string) =>
    pageBody({ status, title: String(status), body: html`<h1>${status}</h1><p class="error" id="error">${message}</p>` });

  /** A short page; to a person who followed a link here from elsewhere, a link to open it from here. */
  const forbiddenPage = (who: string, url: URL, document: boolean): Body =>
    pageBody({
      status: 403,
      title: '403',
      body: html`<h1>403</h1><p class="error" id="error">Refused ${who}: this archive answers its own pages only.</p>${
        document ? html`<p><a id="open-here" href="${url.pathname + url.search}">Open it here</a></p>` : ''
      }`,
    });

  /** A refusal of the live page's addresses: a page for the page, JSON for its data. */
  const jsonOrPage = ({ status, json }: { status: number; json: unknown }, page: boolean) =>
    page ? { status, response: errorPage(status, (json as { error: string }).error) } : jsonReply({ status, json });

  async function route(path: string, params: URLSearchParams, req: IncomingMessage): Promise<{ status: number; response: Body }> {
    if (path === '/live' || path === '/api/live') {
      const refused = liveRefusal(context.live, req);
      if (refused) return jsonOrPage(refused, path === '/live');
      if (path === '/api/live') return jsonReply(await liveSnapshot(context.live!));
    }
    const page = Object.hasOwn(PAGES, path) ? PAGES[path] : undefined;
    if (page) {
      // Awaited: search runs in a process of its own while this one answers other requests.
      const shown = await page(context, params);
      return { status: shown.status ?? 200, response: pageBody(shown) };
    }
    if (path === '/api/capture') return jsonReply(captureFactsApi(context, params));
    if (path === '/api/timeline')
      return { status: 200, response: { type: 'application/json', body: JSON.stringify(context.facts.timeline()) } };
    if (path === '/raw') {
      const capture = requestedCapture(context, params);
      const name = (new URL(capture.url).pathname.split('/').pop() || 'index').replace(/[^\w.-]/g, '_');
      return {
        status: 200,
        response: {
          type: 'application/octet-stream',
          body: capture.body,
          ranged: true,
          headers: { 'content-disposition': `attachment; filename="${name}"` },
        },
      };
    }
    if (path === '/screenshot') {
      // The type is one of the allowed image types, and nosniff (as on every UI response) keeps the browser to it.
      const shot = screenshotImage(context, requestedCapture(context, params));
      return { status: 200, response: { type: shot.type, body: shot.data, headers: { 'content-disposition': 'inline' } } };
    }
    const asset = staticAsset(path);
    if (asset) return { status: 200, response: { type: asset.type, body: asset.body, headers: { 'cache-control': 'max-age=3600' } } };
    return { status: 404, response: errorPage(404, `Nothing here: ${path}`) };
  }

  return async (req, res) => {
    let status: number;
    let response: Body;
    try {
      if (allowedHosts && !allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
        // A page elsewhere that rebinds its DNS name to this address reads nothing.
        ({ status, response } = { status: 421, response: errorPage(421, 'Unknown Host header: open the address crawlite serve printed.') });
      } else if (req.method === 'POST' && LIVE_POSTS.has(new URL(req.url ?? '/', 'http://ui.invalid').pathname)) {
        // The live page's controls: the only requests the UI takes that are not GET or HEAD (live-guard.ts).
        ({ status, response } = jsonReply(await livePost(context.live, req, new URL(req.url ?? '/', 'http://ui.invalid').pathname)));
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        ({ status, response } = {
          status: 405,
          response: { ...errorPage(405, `${req.method} is not supported: this archive is read-only`), headers: { allow: 'GET, HEAD' } },
        });
      } else {
        const url = new URL(req.url ?? '/', 'http://ui.invalid');
        const refused = refusedFromElsewhere(req.headers, url.pathname);
        if (refused) {
          // Before anything reads the archive: a page elsewhere learns nothing from how long this took.
          ({ status, response } = { status: 403, response: forbiddenPage(refused, url, req.headers['sec-fetch-dest'] === 'document') });
        } else if (movedToReplayPageOrigin(context, req, url.pathname)) {
          const location = context.replayPageOrigin + url.pathname + url.search;
          ({ status, response } = {
            status: 302,
            response: {
              ...pageBody({ title: 'Moved', body: html`<p><a href="${location}">Open the replay</a></p>` }),
              headers: { location },
            },
          });
        } else if (url.pathname === '/sql.csv' || url.pathname === '/sql.json') {
          // Streamed as read, or a page saying why not.
          const instead = await sqlDownload(
            context,
            url.pathname === '/sql.csv' ? 'csv' : 'json',
            url.searchParams,
            req,
            res,
            securityHeaders(frameSources),
          );
          if (!instead) return;
          ({ status, response } = { status: instead.status ?? 400, response: pageBody(instead) });
        } else ({ status, response } = await route(url.pathname, url.searchParams, req));
      }
    } catch (error) {
      if (error instanceof UiHttpError) {
        status = error.status;
        response = errorPage(error.status, error.message);
      } else {
        status = 500;
        const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        response = errorPage(500, `crawlite could not show this page: ${message}`);
      }
    }
    const body = typeof response.body === 'string' ? Buffer.from(response.body) : response.body;
    const headers = { ...securityHeaders(frameSources), 'content-type': response.type, ...response.headers };
    sendReply(res, req.method, req.headers.range, { status, headers, body }, response.ranged === true);
  };
}
