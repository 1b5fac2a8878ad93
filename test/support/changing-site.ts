import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a path answers in one version of a site; undefined answers 404. */
export interface Served {
  status?: number;
  body: string;
  etag?: string;
  lastModified?: string;
  location?: string;
}

/** One request as the server saw it: its validators and the status it answered. */
export interface SeenRequest {
  path: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  status: number;
}

/**
 * A site whose answers change with its version, as a cache-aware server
 * answers them: a 304 when a request's If-None-Match (or, without one, its
 * If-Modified-Since) matches the current answer. It logs every request and
 * every body it sent, so tests can count both.
 */
export class ChangingSite {
  version = 1;
  readonly requests: SeenRequest[] = [];
  /** Every distinct body sent (404 pages included), so stored bodies can be counted against it. */
  readonly bodies = new Set<string>();

  constructor(
    private readonly answer: (path: string, version: number) => Served | undefined,
    private readonly delayMs = 0,
  ) {}

  /** The server's handler: answers after the delay, unless the client goes away first. */
  readonly handle = (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.reply(req, res, path);
        resolve();
      }, this.delayMs);
      res.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  /** The requests of paths that carried a validator. */
  conditional(): SeenRequest[] {
    return this.requests.filter((seen) => seen.ifNoneMatch !== undefined || seen.ifModifiedSince !== undefined);
  }

  private reply(req: IncomingMessage, res: ServerResponse, path: string): void {
    const served = this.answer(path, this.version) ?? { status: 404, body: 'not found' };
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    const headers: Record<string, string> = { 'content-type': path.endsWith('.txt') ? 'text/plain' : 'text/html; charset=utf-8' };
    if (served.etag) headers.etag = served.etag;
    if (served.lastModified) headers['last-modified'] = served.lastModified;
    if (served.location) headers.location = served.location;
    // RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only without it.
    const notModified =
      ifNoneMatch !== undefined
        ? served.etag !== undefined && ifNoneMatch === served.etag
        : ifModifiedSince !== undefined && served.lastModified === ifModifiedSince;
    const status = notModified ? 304 : (served.status ?? 200);
    const seen: SeenRequest = { path, status };
    if (ifNoneMatch !== undefined) seen.ifNoneMatch = ifNoneMatch;
    if (ifModifiedSince !== undefined) seen.ifModifiedSince = ifModifiedSince;
    this.requests.push(seen);
    if (notModified) {
      res.writeHead(304, headers).end();
      return;
    }
    this.bodies.add(served.body);
    res.writeHead(status, headers).end(served.body);
  }
}
