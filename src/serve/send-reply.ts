import type { ServerResponse } from 'node:http';
import { parseRange } from './replay/byte-range.js';

/** A response about to be sent, whole: status, headers (lower-case names) and body. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends a reply, honouring HEAD (headers only, the length of the body that GET would send) and a
 * single `Range: bytes=` on a 200 (206 with Content-Range, or 416 when no byte of it exists) unless
 * `ranges` is false (pages built per request, which nobody downloads in parts).
 */
export function sendReply(
  res: ServerResponse,
  method: string | undefined,
  rangeHeader: string | undefined,
  reply: Reply,
  ranges = true,
): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  let { status, body } = reply;
  if (ranges && status === 200) {
    headers['accept-ranges'] = 'bytes';
    const range = parseRange(rangeHeader, body.length);
    if (range.kind === 'part') {
      status = 206;
      headers['content-range'] = `bytes ${range.start}-${range.end}/${body.length}`;
      body = body.subarray(range.start, range.end + 1);
    } else if (range.kind === 'unsatisfiable') {
      status = 416;
      headers['content-range'] = `bytes */${body.length}`;
      body = Buffer.alloc(0);
    }
  }
  headers['content-length'] = body.length;
  res.writeHead(status, headers);
  res.end(method === 'HEAD' ? undefined : body);
}
