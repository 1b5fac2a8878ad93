import type { CDPSession } from 'playwright-core';
import type { BrowserExchange, RenderJob } from '../pipeline/renderer.js';
import { type HeaderEntry, type PausedRequest, toExchange } from './exchange-record.js';
import { documentFulfilment, plainFulfilment } from './serve-document.js';

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
  /** URLs this browser captured already (GET only): a page does not capture them again. */
  captured: Set<string>;
  maxBodyBytes: number;
}

interface Slot {
  exchange?: BrowserExchange;
}

/**
 * Pauses every request a page makes (DevTools' Fetch domain): answers the page's own document from
 * the job, refuses what the job does not admit, and keeps each response it lets through with its
 * body. Every pause is answered exactly once, also after the capture finished.
 */
export class PageCapture {
  readonly blocked: string[] = [];
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
        if (!(await this.answer('Fetch.fulfillRequest', { requestId, ...plainFulfilment(document) }))) await this.answer('Fetch.failRequest', { requestId, errorReason: 'Failed' });
      }
      return;
    }
    if (request.url.startsWith('data:') || request.url.startsWith('blob:')) return void (await this.answer('Fetch.continueRequest', { requestId }));
    if (!this.admits(request.url)) {
      if (!this.blocked.includes(request.url)) this.blocked.push(request.url);
      return void (await this.answer('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }));
    }
    const key = request.method === 'GET' ? request.url : undefined;
    if ((key !== undefined && this.options.captured.has(key)) || STREAMED.has(event.resourceType)) {
      return void (await this.answer('Fetch.continueRequest', { requestId }));
    }
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
      slot.exchange = toExchange({ resourceType: event.resourceType, request, status, statusText: event.responseStatusText ?? '', headers, body, startedAt });
    } finally {
      await this.answer('Fetch.continueRequest', { requestId });
    }
  }

  /** The body as the browser decoded it, or undefined when it is larger than the cap or cannot be had. */
  private async readBody(requestId: string, headers: readonly HeaderEntry[]): Promise<Buffer | undefined> {
    const length = headers.find(({ name }) => name.toLowerCase() === 'content-length')?.value;
    if (length !== undefined && Number(length) > this.options.maxBodyBytes) return undefined;
    try {
      const { body, base64Encoded } = await this.session.send('Fetch.getResponseBody', { requestId });
      const bytes = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
      return bytes.length > this.options.maxBodyBytes ? undefined : bytes;
    } catch {
      return undefined;
    }
  }

  private drop(key: string | undefined): void {
    if (key === undefined || !this.mine.has(key)) return;
    this.mine.delete(key);
    this.options.captured.delete(key);
  }

  private isDocument(event: PausedEvent): boolean {
    return event.frameId === this.options.mainFrameId && event.resourceType === 'Document' && event.request.method === 'GET' && event.request.url === this.documentUrl;
  }

  private admits(url: string): boolean {
    try {
      return this.options.job.admits(url);
    } catch {
      return false;
    }
  }
}
