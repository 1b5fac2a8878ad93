import type { HttpResponse } from './fetcher.js';
import { documentOf } from '../url/index.js';

/** Documents kept at most, and their bytes together: a hash-routed app is one document, often large (a TiddlyWiki is megabytes). */
const MAX_DOCUMENTS = 8;
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The last HTML documents a browser crawl fetched, so that a hash route of one (`/#/a`, the same
 * document rendered at another fragment) is answered without asking the site again. Bounded in
 * count and bytes; a route whose document has left the shelf (or a resumed crawl) is fetched as any URL.
 */
export class DocumentShelf {
  private readonly documents = new Map<string, HttpResponse>();
  private bytes = 0;

  /** The response fetched for the document a route URL shows; undefined for a URL without a fragment, or one not on the shelf. */
  take(url: string): HttpResponse | undefined {
    const document = documentOf(url);
    if (document === url) return undefined;
    const response = this.documents.get(document);
    if (!response) return undefined;
    // Most recently used last, so the shelf lets the oldest go first.
    this.documents.delete(document);
    this.documents.set(document, response);
    // A copy: the body's buffer goes to a parse thread and comes back as another.
    return { ...response, body: Buffer.from(response.body) };
  }

  /** Keeps a page's successful HTML response (a copy of its body) under its document's URL. */
  keep(url: string, response: HttpResponse): void {
    if (response.status < 200 || response.status > 299 || !/html/i.test(response.headers['content-type'] ?? '')) return;
    if (response.body.length > MAX_BYTES / 2) return;
    const document = documentOf(url);
    this.drop(document);
    this.documents.set(document, { ...response, body: Buffer.from(response.body) });
    this.bytes += response.body.length;
    for (const oldest of this.documents.keys()) {
      if (this.documents.size <= MAX_DOCUMENTS && this.bytes <= MAX_BYTES) break;
      this.drop(oldest);
    }
  }

  private drop(document: string): void {
    const kept = this.documents.get(document);
    if (!kept) return;
    this.bytes -= kept.body.length;
    this.documents.delete(document);
  }
}
