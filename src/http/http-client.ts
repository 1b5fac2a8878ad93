import diagnosticsChannel from 'node:diagnostics_channel';
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import { MAX_RESPONSE_HEAD_BYTES } from '../pipeline/crawl-limits.js';
import {
  BodyTooLargeError,
  ContentDecodeError,
  CrawlStoppedError,
  HeadersTooLargeError,
  NetworkError,
  RequestTimeoutError,
} from '../pipeline/fetch-errors.js';
import type { Fetcher, HttpResponse, WireExchange } from '../pipeline/fetcher.js';
import type { Validators } from '../pipeline/ports.js';
import type { CrawlCookies } from './cookie-jar.js';
import { DecodedTooLargeError, decodeContent, UndecodableContentError } from './decode-content.js';
import { Agent, ProxyAgent, errors as undiciErrors } from './undici-parts.js';
import { ResponseCollector, type CollectedResponse, type Connecting } from './response-collector.js';

export interface HttpClientSettings {
  /** Connections kept per origin. */
  connections: number;
  /** Told when a request's headers are written to its connection: when the server sees it start. */
  onSent?: (origin: string) => void;
  timeoutMs: number;
  maxBodyBytes: number;
  userAgent: string;
  /** Sent with every request (--header); the crawler's own headers are not among them. */
  headers?: Record<string, string>;
  /** Cookies given by the user and set by servers during the run. */
  cookies?: CrawlCookies;
  /** An HTTP proxy URL: plain http:// requests go through it as absolute URLs, https:// ones through CONNECT. */
  proxy?: string;
}

const MAX_REMEMBERED_ORIGINS = 1024;

/** What undici publishes on `undici:client:sendHeaders`: its request, the head it is about to write, the socket. */
interface SendHeadersMessage {
  request: { abort: (error?: Error) => void; origin?: unknown };
  headers: string;
  socket?: { remoteAddress?: string };
}

/** Header values whose repeats are kept one per line: a comma may be part of one value. */
const LINE_JOINED = new Set(['set-cookie', 'location']);

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    // Most headers come once: no array for them.
    if (!Array.isArray(value)) {
      flat[key] = key === 'location' ? utf8IfValid(value) : value;
      continue;
    }
    const values = key === 'location' ? value.map(utf8IfValid) : value;
    flat[key] = values.join(LINE_JOINED.has(key) ? '\n' : ', ');
  }
  return flat;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * undici hands header values over as Latin-1 strings, one character per byte.
 * A server that sends a raw UTF-8 Location means UTF-8, as browsers take it;
 * bytes that are not valid UTF-8 stay Latin-1.
 */
function utf8IfValid(latin1: string): string {
  // Pure ASCII reads the same either way.
  if (!/[^\x00-\x7f]/.test(latin1)) return latin1;
  try {
    return strictUtf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return latin1;
  }
}

/**
 * The exchange as it went over the wire. The request head is what undici
 * wrote (its own host and connection headers included); a request that never
 * got as far as a connection (it cannot have a response) has none, and then
 * only what is known is kept. Through a proxy, the address is the proxy's and
 * the reason phrase is '' (undici's proxy wrapper does not pass it on); an
 * https:// request's CONNECT to the proxy is not part of the exchange.
 */
function wireOf(response: CollectedResponse, startedAt: number): WireExchange {
  const { request } = response;
  const wire: WireExchange = {
    httpVersion: response.httpVersion,
    reason: response.reason,
    rawHeaders: response.rawHeaders,
    requestMethod: request?.method ?? 'GET',
    requestTarget: request?.target ?? '',
    requestHeaders: request?.headers ?? Buffer.alloc(0),
    startedAt: new Date(request?.startedAt ?? startedAt).toISOString(),
  };
  if (request?.remoteIp) wire.remoteIp = request.remoteIp;
  return wire;
}

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/**
 * One GET at a time per call, over a shared keep-alive pool. It never
 * follows redirects: the crawler does, so that every hop is recorded and
 * two paths to one target merge.
 */
export class HttpClient implements Fetcher {
  private readonly agent: Dispatcher;
  private readonly onSendHeaders: (message: unknown) => void;
  private readonly origins = new Map<string, string>();
  /** This client's requests between their connection and their head going out. */
  private readonly connecting: Connecting = new Map();
  /**
   * Request headers whose values are never stored (see README, "Headers,
   * cookies and a proxy"): the user's own, cookies (given or set by servers),
   * a proxy's credentials.
   */
  private readonly secretHeaders: ReadonlySet<string>;

  constructor(private readonly settings: HttpClientSettings) {
    const { onSent } = settings;
    this.secretHeaders = new Set([
      'cookie',
      'proxy-authorization',
      ...Object.keys(settings.headers ?? {}).map((name) => name.toLowerCase()),
    ]);
    // undici publishes the moment a request's head goes out, with the head as written and its socket.
    this.onSendHeaders = (message) => {
      const { request, headers, socket } = message as SendHeadersMessage;
      const collector = this.connecting.get(request.abort);
      // Another client's request (this process may run several).
      if (!collector) return;
      this.connecting.delete(request.abort);
      collector.sent(headers, socket, this.secretHeaders);
      // A new connection's setup time is then not counted as a gap.
      if (onSent && typeof request.origin === 'string') onSent(this.originOf(request.origin));
    };
    diagnosticsChannel.subscribe('undici:client:sendHeaders', this.onSendHeaders);
    // maxHeaderSize: set, not left to Node's http.maxHeaderSize, which --max-http-header-size can raise without bound.
    const pool = {
      connections: settings.connections,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      connect: { timeout: settings.timeoutMs },
      maxHeaderSize: MAX_RESPONSE_HEAD_BYTES,
    };
    // proxyTunnel false: http:// URLs go to the proxy in absolute form, as wget and curl send them.
    this.agent = settings.proxy ? new ProxyAgent({ ...pool, uri: settings.proxy, proxyTunnel: false }) : new Agent(pool);
  }

  async get(url: string, abort: AbortSignal, validators?: Validators, onSent?: () => void): Promise<HttpResponse> {
    const { timeoutMs, maxBodyBytes } = this.settings;
    const collector = new ResponseCollector(url, maxBodyBytes, this.connecting, onSent);
    const onAbort = () => collector.fail(new CrawlStoppedError(url));
    if (abort.aborted) onAbort();
    else abort.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    // The whole request (connect, headers, body) has timeoutMs; one timer per request costs less than AbortSignal.timeout.
    const timer = setTimeout(() => {
      timedOut = true;
      collector.fail(new RequestTimeoutError(url, timeoutMs));
    }, timeoutMs);
    const started = performance.now();
    const startedAt = Date.now();
    try {
      if (!abort.aborted) {
        const target = new URL(url);
        const dispatch: Dispatcher.DispatchOptions = {
          origin: target.origin,
          path: target.search ? `${target.pathname}${target.search}` : target.pathname,
          method: 'GET',
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          headers: this.requestHeaders(url, validators),
        };
        this.agent.dispatch(dispatch, collector as Dispatcher.DispatchHandler);
      }
      const response = await collector.done;
      const headers = flattenHeaders(response.headers);
      const setCookie = response.headers['set-cookie'];
      if (setCookie !== undefined) this.settings.cookies?.store(url, Array.isArray(setCookie) ? setCookie : [setCookie]);
      const body = await decodeContent(response.body, headers['content-encoding'], maxBodyBytes);
      const fetchedAt = new Date().toISOString();
      const answer: HttpResponse = { status: response.status, headers, body, fetchedAt, elapsedMs: performance.now() - started };
      answer.wire = wireOf(response, startedAt);
      // Repeated Locations are kept one per line (already decoded): the first is the one followed.
      const location = headers.location?.split('\n', 1)[0];
      if (location !== undefined) answer.location = location;
      return answer;
    } catch (error) {
      if (abort.aborted) throw new CrawlStoppedError(url);
      if (timedOut || error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
        throw new RequestTimeoutError(url, timeoutMs, { cause: error });
      }
      throw this.classify(url, error);
    } finally {
      clearTimeout(timer);
      abort.removeEventListener('abort', onAbort);
    }
  }

  /** The WHATWG origin of undici's origin string, remembered: it is asked for every request. */
  private originOf(origin: string): string {
    let known = this.origins.get(origin);
    if (known === undefined) {
      // A crawl over many hosts starts the memory over rather than let it grow.
      if (this.origins.size >= MAX_REMEMBERED_ORIGINS) this.origins.clear();
      known = new URL(origin).origin;
      this.origins.set(origin, known);
    }
    return known;
  }

  private requestHeaders(url: string, validators: Validators | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      accept: '*/*',
      ...this.settings.headers,
      'user-agent': this.settings.userAgent,
      'accept-encoding': 'gzip, deflate, br',
    };
    if (validators?.etag !== undefined) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified !== undefined) headers['if-modified-since'] = validators.lastModified;
    const cookie = this.settings.cookies?.header(url);
    if (cookie !== undefined) headers.cookie = cookie;
    return headers;
  }

  private classify(url: string, error: unknown): Error {
    if (error instanceof BodyTooLargeError) return error;
    if (error instanceof undiciErrors.HeadersOverflowError) return new HeadersTooLargeError(url, MAX_RESPONSE_HEAD_BYTES, { cause: error });
    if (error instanceof DecodedTooLargeError) return new BodyTooLargeError(url, this.settings.maxBodyBytes);
    if (error instanceof UndecodableContentError) {
      return new ContentDecodeError('bad_encoding', url, error.message, { cause: error });
    }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    const code = errorCode(cause) ?? errorCode(error) ?? 'network';
    const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
    return new NetworkError(code, url, message, { cause: error });
  }

  close(): Promise<void> {
    diagnosticsChannel.unsubscribe('undici:client:sendHeaders', this.onSendHeaders);
    return this.agent.close();
  }
}
