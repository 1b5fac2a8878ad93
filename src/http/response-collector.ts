import type { IncomingHttpHeaders } from 'undici/types/header.js';
import { BodyTooLargeError } from '../pipeline/fetch-errors.js';
import { parseHeaders } from './undici-parts.js';
import { headerBlock, httpVersionOn, readRequestHead, type RequestHead } from './wire-format.js';

type Abort = (error?: Error) => void;

/** A response read whole: its status line, headers (parsed and as received), undecoded body, and the request as sent. */
export interface CollectedResponse {
  status: number;
  reason: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
  rawHeaders: Buffer;
  body: Buffer;
  request?: RequestHead & { remoteIp?: string; startedAt: number };
}

/**
 * Requests whose head is about to go out, by the abort function undici gave
 * each: the `undici:client:sendHeaders` message carries the same function on
 * its request, which ties a message to its request exactly.
 */
export type Connecting = Map<Abort, ResponseCollector>;

/**
 * One GET's dispatch handler. undici 7 calls these handler methods directly
 * (its own request() is built on them); unlike request(), they give the raw
 * header Buffers (order, case, repeats) and the reason phrase. The body is
 * kept in memory up to `maxBodyBytes`, as received (still encoded).
 */
export class ResponseCollector {
  readonly done: Promise<CollectedResponse>;
  private resolve!: (response: CollectedResponse) => void;
  private reject!: (error: Error) => void;
  private abort: Abort | undefined;
  private failure: Error | undefined;
  private settled = false;
  private status = 0;
  private reason = '';
  private httpVersion = 'HTTP/1.1';
  private headers: IncomingHttpHeaders = {};
  private rawHeaders: Buffer = Buffer.alloc(0);
  private readonly chunks: Buffer[] = [];
  /** The whole body's buffer, when its Content-Length was given: chunks are copied in as they come. */
  private into: Buffer | undefined;
  private size = 0;
  private request: CollectedResponse['request'];
  private socket: object | undefined;

  constructor(
    private readonly url: string,
    private readonly maxBodyBytes: number,
    private readonly connecting: Connecting,
    /** Told when this request's head went out. */
    private readonly onSent?: () => void,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Ends the request (a stop, the overall timeout, a body too large): `done` rejects with `error`. */
  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = error;
    this.forget();
    this.abort?.(error);
    this.reject(error);
  }

  /** The head written for this request (without the values of `secret` headers), and the connection it went on. */
  sent(head: string, socket: { remoteAddress?: string | undefined } | undefined, secret: ReadonlySet<string>): void {
    const remoteIp = socket?.remoteAddress;
    this.request = { ...readRequestHead(head, secret), startedAt: Date.now() };
    if (remoteIp) this.request.remoteIp = remoteIp;
    this.socket = socket;
    this.onSent?.();
  }

  onConnect(abort: Abort): void {
    // Failed while waiting for a connection: undici is told as soon as it asks.
    if (this.settled) return abort(this.failure);
    this.abort = abort;
    this.connecting.set(abort, this);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, statusText: string | undefined): boolean {
    // 1xx interim responses are not the answer.
    if (statusCode < 200) return true;
    this.status = statusCode;
    // Through a proxy undici passes no status text on (see HttpClient).
    this.reason = statusText ?? '';
    this.httpVersion = httpVersionOn(this.socket);
    this.socket = undefined;
    this.rawHeaders = headerBlock(rawHeaders);
    this.headers = parseHeaders(rawHeaders) as IncomingHttpHeaders;
    this.into = this.bodyBuffer(statusCode);
    return true;
  }

  /**
   * One buffer of the announced length for a body that will come (not a 204's or 304's): held
   * as chunks and then joined, a body took twice its size at once, and the chunks' memory was
   * not handed back to the system soon after. Its pages are taken only as the body fills them.
   */
  private bodyBuffer(statusCode: number): Buffer | undefined {
    const declared = this.headers['content-length'];
    if (statusCode === 204 || statusCode === 304 || typeof declared !== 'string' || !/^\d{1,15}$/.test(declared)) return undefined;
    const length = Number(declared);
    return length > 0 && length <= this.maxBodyBytes ? Buffer.allocUnsafeSlow(length) : undefined;
  }

  onData(chunk: Buffer): boolean {
    const at = this.size;
    this.size += chunk.byteLength;
    if (this.size > this.maxBodyBytes) {
      this.fail(new BodyTooLargeError(this.url, this.maxBodyBytes));
      return false;
    }
    const into = this.into;
    if (into && this.size <= into.byteLength) {
      chunk.copy(into, at);
    } else {
      // More than announced (undici stops at Content-Length, so never in practice): kept as chunks.
      if (into) this.chunks.push(into.subarray(0, at));
      this.into = undefined;
      this.chunks.push(chunk);
    }
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.forget();
    const { status, reason, httpVersion, headers, rawHeaders, request } = this;
    const response: CollectedResponse = { status, reason, httpVersion, headers, rawHeaders, body: this.body() };
    if (request) response.request = request;
    this.resolve(response);
  }

  onError(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.forget();
    this.reject(error);
  }

  private body(): Buffer {
    const { into, size } = this;
    if (into && size === into.byteLength) return into;
    // Shorter than announced (undici fails such a response, so never in practice): copied so the body owns its buffer.
    if (into) return Buffer.from(into.subarray(0, size));
    return Buffer.concat(this.chunks, size);
  }

  private forget(): void {
    if (this.abort) this.connecting.delete(this.abort);
    this.socket = undefined;
  }
}
