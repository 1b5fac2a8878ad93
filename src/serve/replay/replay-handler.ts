import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeText, isCss, isHtml, decodeHtml } from '../../html/index.js';
import type { ArchivedPage, ArchiveReader } from '../../storage/reader/index.js';
import { replayAddresses, type ReplayAddresses } from '../replay-addresses.js';
import { RAW_SANDBOX, REPLAY_SANDBOX, replayFramePath } from '../replay-frame.js';
import { captureTimestamp, parseReplayPath, replayPath, type ReplayTarget } from '../replay-url.js';
import { findRequestCapture } from './find-capture.js';
import { replayedCapture } from './replay-facts.js';
import {
  methodNotAllowedPage,
  misdirectedPage,
  notArchivedPage,
  notFoundPage,
  replayFailedPage,
  serviceWorkerRefusedPage,
} from './not-archived-page.js';
import { keptHeaders, replayPolicyHeaders } from './replay-headers.js';
import { sendReply, type Reply } from '../send-reply.js';
import { SHIM_PATH, SHIM_SOURCE } from './replay-shim.js';
import { looksLikeHtml } from './sniff-html.js';
import { escapeAttribute, rewriteHtml } from './rewrite-html.js';
import { rewriteCss } from './rewrite-css.js';
import { corsHeaders, preflight } from './replay-cors.js';
import { hostTarget, pathTarget, urlRewriter, type RewriteTarget } from './rewrite-url.js';

export interface ReplayContext {
  /** The archive, opened read-only. */
  archive: ArchiveReader;
  /** This server's origin, e.g. http://127.0.0.1:5001: every rewritten URL points here. */
  replayOrigin: string;
  /** The origin of the UI's replay page: where replayed pages send the reader and post to; allowed to frame them. */
  uiOrigin: string;
  /** Other UI origins allowed to frame replayed pages (the capture page's, where the UI's replay page has a name of its own). */
  framingOrigins?: string[];
  /** Where captures are replayed (each archived site on a host of its own, on loopback); by default paths of replayOrigin. */
  addresses?: ReplayAddresses;
}

interface Context {
  archive: ArchiveReader;
  uiOrigin: string;
  addresses: ReplayAddresses;
}

/** An archived origin's own replay host, as a request names it (replay-host.ts). */
interface Site {
  /** `http://<label>.crawlite.localhost:<port>`. */
  self: string;
  timestamp: string;
  /** The archived origin, undefined when the label's key names none this server knows. */
  origin: string | undefined;
}

const HTML_UTF8 = 'text/html; charset=utf-8';

/** The most of a POST's body replay reads to match it against the archive's POSTs; a longer one is answered 413. */
export const MAX_POST_BODY = 1024 * 1024;

/**
 * A reply of the replay origin, and whether it is a rewritten page with the shim at its top: only
 * those run scripts. Anything else (a body as captured, an SVG or XML document, replay's own pages)
 * gets a sandbox without scripts, so a document that no shim watches runs nothing even top-level.
 */
type Routed = Reply & { shimmed?: boolean };

/**
 * The replay origin's request handler: `GET|HEAD /{timestamp}{modifier}/{url}` replays the
 * capture of `url` (rewritten, or as captured with `id_`), a POST there the archive's answer to a POST
 * of that URL with the same body, if it has one (else 404); `/_crawlite/shim.js` is the shim that
 * replayed pages load, an absolute path that escaped rewriting is redirected using the Referer's
 * capture, and anything else is a 404 page. With per-origin `addresses` (on loopback), a request
 * naming an archived site's own host (`<ts>-<key>.crawlite.localhost:<port>`) replays the capture of that
 * origin's URL with the request's path and query, the page's relative URLs resolving by themselves;
 * another such host's page may read it (CORS, replay-cors.ts). A browser's top-level navigation to a replay path or host is
 * redirected to the UI's frame page, as pywb does, so a capture is only ever shown in the
 * sandboxed frame; clients that send no Fetch Metadata (curl) get the capture. A service worker's
 * script is refused, so no archived worker can take the replay origin over. With `allowedHosts`,
 * a request naming another Host (neither those nor a site's host of this port) is answered 421, as the UI does. Every response carries the
 * replay policy. See docs/serve.md, "How replay works".
 */
export function createReplayHandler(
  given: ReplayContext,
  allowedHosts?: ReadonlySet<string>,
): (req: IncomingMessage, res: ServerResponse) => void {
  // Origins as URLs serialise them, so `http://127.0.0.1:5001/` works too.
  const context: Context = {
    archive: given.archive,
    uiOrigin: new URL(given.uiOrigin).origin,
    addresses: given.addresses ?? replayAddresses(new URL(given.replayOrigin).origin, false),
  };
  const framers = [context.uiOrigin, ...(given.framingOrigins ?? []).map((origin) => new URL(origin).origin)].join(' ');
  const policy = replayPolicyHeaders(context.addresses.cspSources, framers, REPLAY_SANDBOX);
  const scriptless = replayPolicyHeaders(context.addresses.cspSources, framers, RAW_SANDBOX);
  const failed: Reply = {
    status: 500,
    headers: { 'content-type': HTML_UTF8, ...scriptless },
    body: Buffer.from(replayFailedPage(context.uiOrigin)),
  };
  const answer = (req: IncomingMessage, res: ServerResponse, routed: () => Routed, cors: Record<string, string> = {}): void => {
    try {
      const reply = routed();
      sendReply(res, req.method, req.headers.range, {
        ...reply,
        headers: { ...reply.headers, ...cors, ...(reply.shimmed ? policy : scriptless) },
      });
    } catch {
      // The archive failed to read (damage, a closed file), or a capture holds what HTTP cannot send
      // (a status outside 100-999, say): a page that says so, never a stack.
      if (res.headersSent) res.destroy();
      else sendReply(res, req.method, undefined, failed);
    }
  };
  return (req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const named = context.addresses.site(host);
    if (!named && allowedHosts && !allowedHosts.has(host)) return answer(req, res, misdirected);
    const site = named && { self: `http://${host}`, ...named };
    // Another archived site's page reading this one's captures (its own host, another origin).
    const cors = site ? corsHeaders(context.addresses, site.self, req.headers.origin) : {};
    if (site && req.method === 'OPTIONS' && cors['access-control-allow-origin'])
      return answer(req, res, () => preflight(req.headers), cors);
    if (req.method !== 'POST') return answer(req, res, () => (site ? routeSite(context, site, req) : route(context, req)), cors);
    // A POST is matched by its body, so the body is read first (up to a limit).
    readBody(req, MAX_POST_BODY).then(
      (body) =>
        answer(
          req,
          res,
          () => (body ? (site ? routeSitePost(context, site, req, body) : routePost(context, req, body)) : tooLarge()),
          cors,
        ),
      () => res.destroy(),
    );
  };
}

/** The request's body, or undefined (the rest left unread) once it passes `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // Closed before its end: nobody to answer (after 'end' this changes nothing).
    req.on('close', () => reject(new Error('request closed')));
  });
}

function tooLarge(): Routed {
  return {
    status: 413,
    headers: { 'content-type': HTML_UTF8, connection: 'close' },
    body: Buffer.from(`<!doctype html><title>413</title><p>A POST body over ${MAX_POST_BODY} bytes is not looked up in the archive.</p>`),
  };
}

/** A page elsewhere that rebinds its DNS name to this address reads nothing, the body as captured included. */
function misdirected(): Reply {
  return { status: 421, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(misdirectedPage()) };
}

/** What every replay origin answers before looking at the path: methods it reads, service workers refused, the shim. */
function common(context: Context, req: IncomingMessage): Routed | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return {
      status: 405,
      headers: { allow: 'GET, HEAD, POST', 'content-type': HTML_UTF8 },
      body: Buffer.from(methodNotAllowedPage(context.uiOrigin)),
    };
  }
  // Browsers send this with a service worker's script (and its update checks), whatever scope it asks for.
  if (req.headers['service-worker'] !== undefined) {
    return { status: 403, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(serviceWorkerRefusedPage()) };
  }
  if (req.url === SHIM_PATH) {
    return {
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
      body: Buffer.from(SHIM_SOURCE),
    };
  }
  return undefined;
}

/** A top-level document: typed in, bookmarked, or a link from elsewhere. Frames say `iframe`, `frame`, `embed` or `object`. */
const isTopLevel = (req: IncomingMessage) => req.headers['sec-fetch-dest'] === 'document';

/** A request to an archived site's own host: the captured path and query of its origin, near the label's timestamp. */
function siteTarget(site: Site, req: IncomingMessage): ReplayTarget | undefined {
  const path = req.url ?? '/';
  return site.origin !== undefined && path.startsWith('/')
    ? { timestamp: site.timestamp, modifier: '', url: site.origin + path }
    : undefined;
}

function routeSite(context: Context, site: Site, req: IncomingMessage): Routed {
  const early = common(context, req);
  if (early) return early;
  const target = siteTarget(site, req);
  if (!target) return { status: 404, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(notFoundPage(context.uiOrigin)) };
  if (isTopLevel(req)) return redirect(302, context.uiOrigin + replayFramePath(target.url, target.timestamp));
  return replay(context, target, site);
}

function routeSitePost(context: Context, site: Site, req: IncomingMessage, body: Buffer): Routed {
  const target = siteTarget(site, req);
  if (!target) return { status: 404, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(notFoundPage(context.uiOrigin)) };
  if (isTopLevel(req)) return redirect(303, context.uiOrigin + replayFramePath(target.url, target.timestamp));
  const page = findRequestCapture(context.archive, target.url, 'POST', body, target.timestamp);
  return page ? replayCapture(context, target, page, site) : notArchived(context, target);
}

function route(context: Context, req: IncomingMessage): Routed {
  const early = common(context, req);
  if (early) return early;
  const path = req.url ?? '/';
  const target = parseReplayPath(path);
  if (target && isTopLevel(req)) {
    return redirect(302, context.uiOrigin + replayFramePath(target.url, target.timestamp, target.modifier));
  }
  if (target) return replay(context, target);
  const escaped = escapedPathTarget(context, path, req.headers.referer);
  if (escaped) return redirect(307, escaped);
  return { status: 404, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(notFoundPage(context.uiOrigin)) };
}

/**
 * A POST: to a replay path, the answer the archive holds to a POST of that URL with the same body (an
 * imported one), else the 404 a URL not archived gets; never the GET's capture, never the live site.
 * An escaped path is redirected (307: the browser posts the same body again) as a GET's is.
 */
function routePost(context: Context, req: IncomingMessage, body: Buffer): Routed {
  const path = req.url ?? '/';
  const target = parseReplayPath(path);
  // A form posted from a top-level replay document: shown framed, as a GET would be.
  if (target && isTopLevel(req)) {
    return redirect(303, context.uiOrigin + replayFramePath(target.url, target.timestamp, target.modifier));
  }
  if (target) {
    const page = findRequestCapture(context.archive, target.url, 'POST', body, target.timestamp);
    return page ? replayCapture(context, target, page) : notArchived(context, target);
  }
  const escaped = escapedPathTarget(context, path, req.headers.referer);
  if (escaped) return redirect(307, escaped);
  return { status: 404, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(notFoundPage(context.uiOrigin)) };
}

function notArchived(context: Context, target: ReplayTarget): Routed {
  return { status: 404, headers: { 'content-type': HTML_UTF8 }, body: Buffer.from(notArchivedPage(target.url, context.uiOrigin)) };
}

function replay(context: Context, target: ReplayTarget, site?: Site): Routed {
  // The URL's own capture, else a fuzzy match of its query (replay-facts.ts): the bar says which.
  const found = replayedCapture(context.archive, target.url, target.timestamp);
  return found ? replayCapture(context, target, found.page, site) : notArchived(context, target);
}

/** Where a capture's URLs point: on a site's own host, its hosts at the host's timestamp; on paths, at the capture's own timestamp, pywb style. */
function rewriteTarget(context: Context, target: ReplayTarget, timestamp: string, site: Site | undefined): RewriteTarget {
  return site ? hostTarget(context.addresses, site.timestamp) : pathTarget(context.addresses.baseOrigin, timestamp, target.modifier);
}

/** A capture as replay sends it: a redirect to its target's replay path, its body as captured (`id_`), or rewritten. */
function replayCapture(context: Context, target: ReplayTarget, page: ArchivedPage, site?: Site): Routed {
  const timestamp = captureTimestamp(page.fetchedAt);
  const rewriting = rewriteTarget(context, target, timestamp, site);
  const location = redirectTarget(page);
  if (location) return redirect(page.status, rewriting.address(location));
  const headers = keptHeaders(page.headers);
  if (target.modifier === 'id_') {
    if (page.contentType !== null) headers['content-type'] = page.contentType;
    return { status: page.status, headers, body: page.body };
  }
  if (isHtml(page.contentType) || (page.contentType === null && looksLikeHtml(page.body))) {
    headers['content-type'] = withUtf8(page.contentType ?? 'text/html');
    return { status: page.status, headers, body: Buffer.from(replayHtml(context, page, timestamp, rewriting, site)), shimmed: true };
  }
  if (isCss(page.contentType)) {
    headers['content-type'] = withUtf8(page.contentType!);
    const css = decodeText(page.body, page.charset);
    return { status: page.status, headers, body: Buffer.from(rewriteCss(css, urlRewriter(page.url, rewriting))) };
  }
  if (page.contentType !== null) headers['content-type'] = page.contentType;
  return { status: page.status, headers, body: page.body };
}

/** The page decoded with the charset the crawl stored for it, rewritten, with the shim at the top. */
function replayHtml(context: Context, page: ArchivedPage, timestamp: string, target: RewriteTarget, site: Site | undefined): string {
  const declared = page.charset !== null ? `text/html; charset=${page.charset}` : page.contentType;
  const { text } = decodeHtml(page.body, declared);
  // On a site's own host the shim is told so: it maps URLs to hosts, and the document's URL back to the captured one.
  const hosts = site ? ` data-host-timestamp="${site.timestamp}"` : '';
  const inject =
    // Self-closed, so an XHTML page stays well-formed.
    `<meta charset="utf-8" /><script src="${escapeAttribute((site?.self ?? context.addresses.baseOrigin) + SHIM_PATH)}" ` +
    `data-url="${escapeAttribute(page.url)}" data-timestamp="${timestamp}" data-ui="${escapeAttribute(context.uiOrigin)}"${hosts}></script>`;
  return rewriteHtml(text, { pageUrl: page.url, target, inject });
}

/** Statuses whose Location browsers follow (not 300, 304 or 305). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a captured redirect pointed, absolute; undefined when the capture is no redirect. */
function redirectTarget(page: ArchivedPage): string | undefined {
  if (!REDIRECTS.has(page.status) || !page.location) return undefined;
  try {
    const target = new URL(page.location.trim(), page.url);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A path that is no replay path, requested from a replayed page (`fetch('/api/x')` resolves to
 * the replay origin's `/api/x`): the same path on the site of the capture the Referer names, at
 * its timestamp, as pywb does. Replayed pages send same-origin referrers for this.
 */
function escapedPathTarget(context: Context, path: string, referer: string | undefined): string | undefined {
  if (!referer || !path.startsWith('/')) return undefined;
  try {
    const from = new URL(referer);
    if (from.origin !== context.addresses.baseOrigin) return undefined;
    const capture = parseReplayPath(from.pathname + from.search);
    if (!capture) return undefined;
    const target = new URL(path, capture.url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
    return context.addresses.baseOrigin + replayPath(target.href, capture.timestamp);
  } catch {
    return undefined;
  }
}

function redirect(status: number, location: string): Reply {
  return {
    status,
    headers: { location, 'content-type': HTML_UTF8 },
    body: Buffer.from(`<!doctype html><a href="${escapeAttribute(location)}">Moved</a>`),
  };
}

/** The captured media type with its charset set to UTF-8, which is what replay sends. */
function withUtf8(contentType: string): string {
  return `${contentType.split(';')[0]!.trim()}; charset=utf-8`;
}
