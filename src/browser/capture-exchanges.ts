import type { CDPSession } from 'playwright-core';
import type { Reason } from '../pipeline/ports.js';
import type { BlockedRequest, BrowserExchange, RenderJob } from '../pipeline/renderer.js';
import type { ByteGate } from './byte-gate.js';
import type { CapturedRequisites } from './captured-requisites.js';
import { type HeaderEntry, headerLines, type PausedRequest, toExchange } from './exchange-record.js';
import { refusedMethod } from './guard-rules.js';
import { decodedBodyHeaders, documentFulfilment, plainFulfilment } from './serve-document.js';

/** Fetch.requestPaused, the fields read here: at the request stage, or at the response stage once a status or an error is set. */
interface PausedEvent {
  requestId: string;
  request: PausedRequest;
  frameId: string;
  resourceType: string;
  responseErrorReason?: string;
  responseStatusCode?: number;
  responseStatusText?: string;
  responseHeaders?: HeaderEntry[];
}

/** Statuses the browser follows: their bodies are not kept by the browser, so none is read. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Responses that may never end: holding one until it is whole would starve the page. */
const STREAMED = new Set(['EventSource', 'WebSocket']);

export interface CaptureOptions {
  job: RenderJob;
  /** The page's main frame, which alone is answered with the job's document. */
  mainFrameId: string;
  /** URLs the crawl's renders captured already (GET only), in any browser: a page does not capture them again. */
  captured: CapturedRequisites;
  maxBodyBytes: number;
  /** What all bodies kept of one page may add up to; past it, responses reach the page and are not kept. */
  maxPageBytes: number;
  /** Bounds the bytes read out of the browser at once, across pages. */
  reads: ByteGate;
  /** PUT, PATCH, DELETE and other writes reach the site. */
  allowWrites: boolean;
}

/** A request for part of a resource (media): a whole body kept is no answer to it. */
const ranged = (request: PausedRequest) => Object.keys(request.headers).some((name) => name.toLowerCase() === 'range');

/** What a body of unknown length is counted as while it is read: most are small scripts and styles. */
const UNKNOWN_LENGTH_BYTES = 1024 * 1024;

interface Slot {
  exchange?: BrowserExchange;
}

/**
 * Pauses every request a page makes (DevTools' Fetch domain): answers the page's own document from
 * the job, refuses what the job does not admit, and keeps each response it lets through with its
 * body. Every pause is answered exactly once, also after the capture finished.
 */
export class PageCapture {
  readonly blocked: BlockedRequest[] = [];
  /** Where the page's script tried to take its top frame (refused: the page stays as it rendered). */
  readonly navigations: string[] = [];
  /** Bytes of bodies kept so far, counted against maxPageBytes. */
  private kept = 0;
  private readonly slots: Slot[] = [];
  private readonly starts = new Map<string, number>();
  /** Keys this page added to `captured`: given back if its exchanges are not stored. */
  private readonly mine = new Set<string>();
  private readonly documentUrl: string;
  private finished = false;

  constructor(
    private readonly session: CDPSession,
    private readonly options: CaptureOptions,
  ) {
    const url = new URL(options.job.url);
    url.hash = '';
    this.documentUrl = url.href;
  }

  private readonly listener = (event: PausedEvent) => {
    void this.onPaused(event);
  };

  async start(): Promise<void> {
    this.session.on('Fetch.requestPaused', this.listener);
    await this.session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  }

  /** Stops listening: for a tab whose page has left (about:blank), so the next page's capture takes over. */
  detach(): void {
    this.session.off('Fetch.requestPaused', this.listener);
  }

  /** Ends the capture: what the page asks for from now on is refused; returns the exchanges whole by now, in the order their responses came. */
  finish(): BrowserExchange[] {
    this.finished = true;
    return this.slots.flatMap((slot) => (slot.exchange ? [slot.exchange] : []));
  }

  /** The page's exchanges are not stored: another page may capture its URLs again. */
  forget(): void {
    for (const key of this.mine) this.options.captured.delete(key);
    this.mine.clear();
  }

  private async onPaused(event: PausedEvent): Promise<void> {
    try {
      if (event.responseStatusCode !== undefined || event.responseErrorReason !== undefined) await this.onResponse(event);
      else await this.onRequest(event);
    } catch {
      // The page closed while its request was paused: nothing is left to answer.
    }
  }

  private async answer(method: 'Fetch.continueRequest' | 'Fetch.failRequest' | 'Fetch.fulfillRequest', params: object): Promise<boolean> {
    try {
      await this.session.send(method, params as never);
      return true;
    } catch {
      return false;
    }
  }

  private async onRequest(event: PausedEvent): Promise<void> {
    const { requestId, request } = event;
    if (this.finished) return void (await this.answer('Fetch.failRequest', { requestId, errorReason: 'Aborted' }));
    if (this.isDocument(event)) {
      const { document } = this.options.job;
      if (!(await this.answer('Fetch.fulfillRequest', { requestId, ...documentFulfilment(document) }))) {
        if (!(await this.answer('Fetch.fulfillRequest', { requestId, ...plainFulfilment(document) })))
          await this.answer('Fetch.failRequest', { requestId, errorReason: 'Failed' });
      }
      return;
    }
    if (request.url.startsWith('data:') || request.url.startsWith('blob:'))
      return void (await this.answer('Fetch.continueRequest', { requestId }));
    if (event.frameId === this.options.mainFrameId && event.resourceType === 'Document') {
      // The page's script leaving it (location.href, a form sent, a reload with another URL): the page
      // is kept as it rendered, and where it went is a link. Aborted navigations leave no error page.
      if (
        /^https?:/.test(request.url) &&
        request.method === 'GET' &&
        !this.navigations.includes(request.url) &&
        this.navigations.length < 100
      )
        this.navigations.push(request.url);
      return void (await this.answer('Fetch.failRequest', { requestId, errorReason: 'Aborted' }));
    }
    const write = refusedMethod(request.method, this.options.allowWrites);
    if (write || !this.admits(request.url)) {
      this.block(request.url, write);
      return void (await this.answer('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }));
    }
    const key = request.method === 'GET' ? request.url : undefined;
    if (key !== undefined && this.options.captured.has(key)) {
      // Captured before, by this browser or an earlier one: answered with that capture where it is kept, so the site is not asked again.
      const kept = ranged(request) ? undefined : this.options.captured.response(key);
      const answer = kept && {
        requestId,
        responseCode: kept.status,
        responseHeaders: kept.headers,
        body: kept.body.toString('base64'),
        ...(kept.statusText ? { responsePhrase: kept.statusText } : {}),
      };
      if (answer && (await this.answer('Fetch.fulfillRequest', answer))) return;
      return void (await this.answer('Fetch.continueRequest', { requestId }));
    }
    if (STREAMED.has(event.resourceType)) return void (await this.answer('Fetch.continueRequest', { requestId }));
    if (key !== undefined) {
      this.options.captured.add(key);
      this.mine.add(key);
    }
    this.starts.set(requestId, Date.now());
    if (!(await this.answer('Fetch.continueRequest', { requestId, interceptResponse: true }))) this.drop(key);
  }

  private async onResponse(event: PausedEvent): Promise<void> {
    const { requestId, request } = event;
    const key = request.method === 'GET' ? request.url : undefined;
    const slot: Slot = {};
    this.slots.push(slot);
    const startedAt = this.starts.get(requestId) ?? Date.now();
    this.starts.delete(requestId);
    try {
      const status = event.responseStatusCode;
      if (status === undefined || event.responseErrorReason !== undefined || this.finished) return this.drop(key);
      const headers = event.responseHeaders ?? [];
      const body = REDIRECTS.has(status) ? Buffer.alloc(0) : await this.readBody(requestId, headers);
      // A body read after the capture finished belongs to no stored page.
      if (!body || this.finished) return this.drop(key);
      const statusText = event.responseStatusText ?? '';
      slot.exchange = toExchange({ resourceType: event.resourceType, request, status, statusText, headers, body, startedAt });
      // A copy: the exchange's body moves to the archive's writer thread.
      if (key !== undefined)
        this.options.captured.keep(key, { status, statusText, headers: decodedBodyHeaders(headerLines(headers)), body: Buffer.from(body) });
    } finally {
      await this.answer('Fetch.continueRequest', { requestId });
    }
  }

  /**
   * The body as the browser decoded it, or undefined when it is larger than the cap, would take the
   * page past what it may keep, or cannot be had. Reads of all pages together are bounded in bytes.
   */
  private async readBody(requestId: string, headers: readonly HeaderEntry[]): Promise<Buffer | undefined> {
    const header = headers.find(({ name }) => name.toLowerCase() === 'content-length')?.value;
    const length = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
    const room = Math.min(this.options.maxBodyBytes, this.options.maxPageBytes - this.kept);
    if (length !== undefined && length > room) return undefined;
    const leave = await this.options.reads.enter(length ?? UNKNOWN_LENGTH_BYTES);
    try {
      if (this.finished) return undefined;
      const { body, base64Encoded } = await this.session.send('Fetch.getResponseBody', { requestId });
      const bytes = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
      if (bytes.length > Math.min(this.options.maxBodyBytes, this.options.maxPageBytes - this.kept)) return undefined;
      this.kept += bytes.length;
      return bytes;
    } catch {
      return undefined;
    } finally {
      leave();
    }
  }

  private block(url: string, reason: Reason | undefined): void {
    if (this.blocked.length < 1000 && !this.blocked.some((seen) => seen.url === url)) this.blocked.push(reason ? { url, reason } : { url });
  }

  private drop(key: string | undefined): void {
    if (key === undefined || !this.mine.has(key)) return;
    this.mine.delete(key);
    this.options.captured.delete(key);
  }

  private isDocument(event: PausedEvent): boolean {
    return (
      event.frameId === this.options.mainFrameId &&
      event.resourceType === 'Document' &&
      event.request.method === 'GET' &&
      event.request.url === this.documentUrl
    );
  }

  private admits(url: string): boolean {
    try {
      return this.options.job.admits(url);
    } catch {
      return false;
    }
  }
}
