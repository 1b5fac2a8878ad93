import { lookup } from 'node:dns/promises';
import { Agent, createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Reason } from '../pipeline/ports.js';
import type { GuardRules } from './guard-rules.js';

/** Headers of one hop, not passed on (RFC 9110 7.6.1), and the proxy's own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Raw header pairs without the hop-by-hop ones, names and order as sent. */
function endToEnd(raw: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  return kept;
}

/** The address a host name resolves to, looked up once here so that the address checked is the one connected to. */
async function resolve(hostname: string): Promise<string | undefined> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  try {
    return (await lookup(bare, { verbatim: true })).address;
  } catch {
    return undefined;
  }
}

function refuseSocket(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

/**
 * An HTTP proxy on a loopback port of its own, which Chromium must send everything through
 * (--proxy-server, loopback included): whole requests, and CONNECT tunnels for https and WebSockets.
 * Each is checked against the crawl's rules (GuardRules) before a socket to the destination opens,
 * and connected to the very address that was checked. So scope holds for every API a page can reach
 * the network with (workers of every kind, WebSockets, beacons, prefetches), not only for those
 * DevTools can pause.
 */
export class GuardProxy {
  private readonly sockets = new Set<Socket | Duplex>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });

  private constructor(
    private readonly server: Server,
    private readonly rules: GuardRules,
  ) {
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.onRequest(req, res));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head));
    server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => refuseSocket(socket, '403 Forbidden'));
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  static async start(rules: GuardRules): Promise<GuardProxy> {
    const server = createServer();
    const proxy = new GuardProxy(server, rules);
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolvePromise());
    });
    return proxy;
  }

  /** `http://127.0.0.1:PORT`, for Chromium's --proxy-server. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((done) => this.server.close(() => done()));
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await closed;
  }

  private track<S extends Socket | Duplex>(socket: S): S {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  /** The address to connect to for `hostname:port`, or why not: refusals are recorded, failures are not. */
  private async destination(hostname: string, port: number, recordAs: string): Promise<string | Reason | undefined> {
    const address = await resolve(hostname);
    if (address === undefined) return undefined;
    const refused = this.rules.address(hostname, port, address);
    if (refused) {
      this.rules.refused(recordAs, refused);
      return refused;
    }
    return address;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { connection: 'close' }).end();
    }
    const method = req.method ?? 'GET';
    const refused = this.rules.request(url, method);
    if (refused) {
      this.rules.refused(url.href, refused);
      return void res.writeHead(403, { 'content-type': 'text/plain' }).end(`${refused.message}\n`);
    }
    const port = Number(url.port || 80);
    const address = await this.destination(url.hostname, port, url.href);
    if (typeof address !== 'string') return void res.writeHead(address === undefined ? 502 : 403).end();
    const upstream = forward({
      host: address,
      port,
      method,
      path: url.pathname + url.search,
      headers: endToEnd(req.rawHeaders),
      setHost: false,
      agent: this.agent,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  private async onConnect(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.track(socket);
    socket.on('error', () => socket.destroy());
    let target: URL;
    try {
      target = new URL(`http://${req.url ?? ''}`);
    } catch {
      return refuseSocket(socket, '400 Bad Request');
    }
    const port = Number(target.port || 80);
    // A tunnel tells only its host and port: recorded as the origin it most likely is.
    const recordAs =
      port === 443 ? `https://${target.hostname}/` : port === 80 ? `http://${target.hostname}/` : `https://${target.hostname}:${port}/`;
    const refused = this.rules.tunnel(target.hostname, port);
    if (refused) {
      this.rules.refused(recordAs, refused);
      return refuseSocket(socket, '403 Forbidden');
    }
    const address = await this.destination(target.hostname, port, recordAs);
    if (typeof address !== 'string') return refuseSocket(socket, address === undefined ? '502 Bad Gateway' : '403 Forbidden');
    const upstream = this.track(connect({ host: address, port }));
    upstream.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => (upstream.connecting ? refuseSocket(socket, '502 Bad Gateway') : socket.destroy()));
    socket.on('close', () => upstream.destroy());
  }
}
