import type { IncomingMessage } from 'node:http';
import { CrawliteError } from '../../crawlite-error.js';
import { requestArgument } from '../../pipeline/control-request.js';
import type { UiLive } from '../live-mount.js';
import { refusedControl, refusedHost } from './live-guard.js';
import { askedControl, BadControlError, checkPattern } from './live-controls.js';

// The live page's JSON: GET /api/live (what the page shows), and the two POSTs its controls send,
// /api/live/control (one row in control_request for the crawl to apply) and /api/live/preview (how
// many queued URLs an exclusion would skip; it writes nothing, but runs the pattern, so it is guarded alike).

export const LIVE_POSTS = new Set(['/api/live/control', '/api/live/preview']);
/** A control's body at most: a pattern and a few settings. */
const MAX_BODY_BYTES = 16 * 1024;

export interface JsonAnswer {
  status: number;
  json: unknown;
}

const refusal = (status: number, error: string): JsonAnswer => ({ status, json: { error } });

/** Who may read the live page and its data: the UI's own names only (live-guard.ts); undefined when allowed. */
export function liveRefusal(live: UiLive | undefined, req: IncomingMessage): JsonAnswer | undefined {
  if (!live) return refusal(501, 'this server has no live page');
  const wrongHost = refusedHost(req.headers, live.hosts);
  return wrongHost ? refusal(403, `Refused ${wrongHost}`) : undefined;
}

/** GET /api/live: the crawl as it stands (a snapshot at most a second old), or why it cannot be read now (503). */
export async function liveSnapshot(live: UiLive): Promise<JsonAnswer> {
  try {
    return { status: 200, json: await live.snapshot() };
  } catch (error) {
    if (error instanceof CrawliteError) return refusal(503, error.message);
    throw error;
  }
}

/** The body as JSON, read to MAX_BODY_BYTES at most; undefined when it is longer. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadControlError(`the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new BadControlError('the body is not JSON');
  }
}

/** POST /api/live/control and /api/live/preview, from the live page only (live-guard.ts). */
export async function livePost(live: UiLive | undefined, req: IncomingMessage, path: string): Promise<JsonAnswer> {
  if (!live) return refusal(501, 'this server has no live page');
  // Before the body is read: a page elsewhere learns nothing from how its request was handled.
  const refused = refusedControl(req.headers, live.token, live.hosts);
  if (refused) return refusal(403, `Refused ${refused}: the crawl answers its live page only.`);
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return refusal(415, 'send the body as application/json');
  try {
    const body = await readJson(req);
    if (path === '/api/live/preview') {
      const pattern = checkPattern((body as { pattern?: unknown } | null)?.pattern);
      return { status: 200, json: { pattern, ...(await live.preview(pattern)) } };
    }
    const asked = askedControl(body);
    const sent = await live.request(asked);
    return { status: 202, json: { ...sent, command: asked.command, argument: requestArgument(asked) } };
  } catch (error) {
    if (error instanceof BadControlError) return refusal(400, error.message);
    if (error instanceof CrawliteError) {
      const status = error.code === 'CONTROL_UNAVAILABLE' ? 409 : error.code === 'ARCHIVE_BUSY' || error.code === 'SEARCH_BUSY' ? 503 : 422;
      return refusal(status, error.message);
    }
    throw error;
  }
}
