import type { HeaderEntry } from './exchange-record.js';

/** URLs remembered at most: past it the oldest are forgotten, and may be captured once more. */
const MAX_URLS = 100_000;
/** Bodies kept to answer pages with, in bytes, and the largest one kept. */
const MAX_BYTES = 64 * 1024 * 1024;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A captured response as a page is answered with it: the status and headers the browser got, the body it decoded. */
export interface KeptResponse {
  status: number;
  statusText: string;
  /** Without the headers of the wire (Content-Encoding, Content-Length...): the body is the decoded one. */
  headers: HeaderEntry[];
  body: Buffer;
}

/**
 * The GET URLs the crawl's renders captured, across every browser of the crawl: Chromium is replaced
 * every so many pages, and a page of the next one does not capture again what a page of an earlier
 * one did (a site's stylesheet would otherwise be captured once per browser). The latest bodies are
 * kept too, bounded in bytes, so a page asking for one is answered with it and the site is not asked
 * again; one no longer kept is fetched by the page, and not captured. Both are bounded: a hint, as
 * the crawl's seen cache is.
 */
export class CapturedRequisites {
  private readonly urls = new Set<string>();
  private readonly bodies = new Map<string, KeptResponse>();
  private bytes = 0;

  has(url: string): boolean {
    return this.urls.has(url);
  }

  add(url: string): void {
    this.urls.add(url);
    if (this.urls.size > MAX_URLS) this.delete(this.urls.values().next().value!);
  }

  /** The capture of `url` was not stored: a later page captures it. */
  delete(url: string): void {
    this.urls.delete(url);
    this.dropBody(url);
  }

  /** What a page asking for `url`, captured already, is answered with; undefined when its body is not kept. */
  response(url: string): KeptResponse | undefined {
    return this.urls.has(url) ? this.bodies.get(url) : undefined;
  }

  /** Keeps a captured 200's body to answer later pages with. */
  keep(url: string, response: KeptResponse): void {
    if (!this.urls.has(url) || response.status !== 200 || response.body.length > MAX_BODY_BYTES) return;
    this.dropBody(url);
    this.bodies.set(url, response);
    this.bytes += response.body.length;
    for (const oldest of this.bodies.keys()) {
      if (this.bytes <= MAX_BYTES) break;
      this.dropBody(oldest);
    }
  }

  private dropBody(url: string): void {
    const kept = this.bodies.get(url);
    if (!kept) return;
    this.bytes -= kept.body.length;
    this.bodies.delete(url);
  }
}
