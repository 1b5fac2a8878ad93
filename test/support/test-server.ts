import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './wait.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, path: string) => unknown;

/** A real HTTP server on 127.0.0.1 that counts hits per path and requests in flight. */
export interface TestServer {
  /** Origin with a trailing slash, e.g. http://127.0.0.1:41234/ */
  url: string;
  port: number;
  hits: Map<string, number>;
  hitCount(path: string): number;
  totalHits(): number;
  inFlight: number;
  maxInFlight: number;
  /** Request start times (ms, performance.now) per path, in order. */
  starts: Map<string, number[]>;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const state = {
    hits: new Map<string, number>(),
    starts: new Map<string, number[]>(),
    inFlight: 0,
    maxInFlight: 0,
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://test');
    const path = url.pathname + url.search;
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    state.starts.set(path, [...(state.starts.get(path) ?? []), performance.now()]);
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      state.inFlight -= 1;
    };
    res.on('finish', done);
    res.on('close', done);
    Promise.resolve(handler(req, res, path)).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    get hits() {
      return state.hits;
    },
    hitCount: (path) => state.hits.get(path) ?? 0,
    totalHits: () => [...state.hits.values()].reduce((a, b) => a + b, 0),
    get inFlight() {
      return state.inFlight;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    starts: state.starts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Servers a test file starts as it goes, closed together (in its afterAll). */
export interface ServerPool {
  serve(handler: Handler): Promise<TestServer>;
  closeAll(): Promise<void>;
}

export function serverPool(): ServerPool {
  const servers: TestServer[] = [];
  return {
    async serve(handler) {
      const server = await startServer(handler);
      servers.push(server);
      return server;
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    },
  };
}

export interface Route {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export const html = (body: string, title = 'page'): Route => ({
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
});

/** The HTML of a page that only links to `hrefs`, for handlers that answer with a string. */
export const linksPage = (hrefs: string[]): string =>
  `<!doctype html><html><body>${hrefs.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;

/** An HTML page with markup of its own in the head (meta, link, script, base...). */
export const doc = (head: string, body = ''): Route => ({
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`,
});

/** An XML answer (a sitemap, say); gzipped sitemap files come as application/x-gzip. */
export const xml = (body: string | Buffer, type = 'application/xml'): Route => ({ headers: { 'content-type': type }, body });

/** A text/plain answer (robots.txt, say); `extra` can change the status or add headers. */
export const text = (body: string, extra: Partial<Route> = {}): Route => ({ headers: { 'content-type': 'text/plain' }, body, ...extra });

/** Serves a fixed table of routes (path with query -> response); anything else is 404. */
export function routes(table: Record<string, Route | ((hit: number) => Route)>, defaultDelayMs = 0): Handler {
  const hits = new Map<string, number>();
  return async (_req, res, path) => {
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    const entry = table[path];
    const route: Route = typeof entry === 'function' ? entry(hit) : (entry ?? { status: 404, body: 'not found' });
    const delay = route.delayMs ?? defaultDelayMs;
    if (delay > 0) await sleep(delay);
    res.writeHead(route.status ?? 200, route.headers ?? {});
    res.end(route.body ?? '');
  };
}
