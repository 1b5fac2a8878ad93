import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface LoggedRequest {
  /** `GET`, `POST`, `CONNECT`... */
  method: string;
  /** The absolute URL asked for, or `host:port` for CONNECT. */
  url: string;
  /** `host:port` the request was for. */
  host: string;
}

/**
 * Chromium's own services, which it contacts from every fresh profile whatever the page does
 * (component updates, account checks), flags notwithstanding. No test page names them.
 */
const BROWSER_SERVICES = /(^|\.)(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)(:\d+)?$/;

export interface LoggingProxy {
  /** `http://127.0.0.1:PORT`, for Chromium's --proxy-server. */
  url: string;
  /** Every request any page made, in order, wherever it was going. */
  requests: LoggedRequest[];
  /** The logged requests since `from` (an index into `requests`) for a host other than these `host:port`s (or matching a pattern) and the browser's own services. */
  outside(hosts: Array<string | RegExp>, from?: number): LoggedRequest[];
  /** Request headers (lower-case) removed before forwarding from now on: a browser that does not send them. */
  withholdHeaders(names: string[]): void;
  close(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

/** 127.0.0.1, and the `*.localhost` names browsers resolve to loopback themselves (serve's per-site replay hosts): the Host header keeps the name. */
const isLoopbackName = (hostname: string) => hostname === LOOPBACK || hostname.endsWith('.localhost');

/**
 * An HTTP proxy that a browser sends every request through (see launchChromium's `proxy`): it
 * records each one, forwards those for 127.0.0.1 and `*.localhost` (the servers under test), and answers any other
 * host with 502 without touching the network, so a page that reaches for the live web is seen
 * doing so and reaches nothing. CONNECT (https, wss) is recorded and refused the same way.
 */
export async function startLoggingProxy(): Promise<LoggingProxy> {
  const requests: LoggedRequest[] = [];
  let withheld: string[] = [];
  const server: Server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form requests only');
      return;
    }
    requests.push({ method: req.method ?? '', url: target.href, host: target.host });
    if (!isLoopbackName(target.hostname) || target.protocol !== 'http:') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('the logging proxy reaches 127.0.0.1 only');
      return;
    }
    forward(
      req,
      target,
      withheld,
      (status, headers, body) => {
        res.writeHead(status, headers);
        body.pipe(res);
      },
      () => res.destroy(),
    );
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const host = req.url ?? '';
    requests.push({ method: 'CONNECT', url: host, host });
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  return {
    url: `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`,
    requests,
    withholdHeaders: (names) => {
      withheld = names;
    },
    outside: (hosts, from = 0) =>
      requests
        .slice(from)
        .filter(
          (logged) =>
            !hosts.some((host) => (typeof host === 'string' ? host === logged.host : host.test(logged.host))) &&
            !BROWSER_SERVICES.test(logged.host),
        ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forward(
  req: IncomingMessage,
  target: URL,
  withheld: string[],
  reply: (status: number, headers: IncomingMessage['headers'], body: IncomingMessage) => void,
  fail: () => void,
): void {
  const headers = { ...req.headers };
  for (const name of ['proxy-connection', ...withheld]) delete headers[name];
  const upstream = request(
    { host: LOOPBACK, port: target.port, path: target.pathname + target.search, method: req.method, headers, agent: false },
    (res) => reply(res.statusCode ?? 502, res.headers, res),
  );
  upstream.on('error', fail);
  req.pipe(upstream);
}
