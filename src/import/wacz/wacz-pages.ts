import { normalizeUrl } from '../../url/index.js';
import { entryChunks } from './zip-entry-bytes.js';
import type { ZipEntry } from './zip-directory.js';

/** A page a WACZ lists in pages/pages.jsonl or pages/extraPages.jsonl, by its archive key. */
export interface ListedPage {
  key: string;
  title: string | null;
  /** Browsertrix marks its crawl's seeds `"seed": true`. */
  seed: boolean;
  /** Listed in pages.jsonl (the pages a recorder's user visited, or a crawl's seeds), not extraPages.jsonl. */
  main: boolean;
}

/** A longer line is passed over (Browsertrix puts a page's text in its line, so lines may be large). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const MAX_TITLE = 1000;

/** The lines of an entry, streaming; a line longer than the limit is passed over. */
async function* lines(path: string, entry: ZipEntry): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let length = 0;
  let overlong = false;
  for await (const chunk of entryChunks(path, entry)) {
    let from = 0;
    for (let lf = chunk.indexOf(10); lf >= 0; lf = chunk.indexOf(10, from)) {
      if (!overlong && length + lf - from <= MAX_LINE_BYTES) yield Buffer.concat([...parts, chunk.subarray(from, lf)]).toString('utf8');
      parts = [];
      length = 0;
      overlong = false;
      from = lf + 1;
    }
    if (overlong) continue;
    length += chunk.byteLength - from;
    if (length > MAX_LINE_BYTES) {
      overlong = true;
      parts = [];
    } else parts.push(chunk.subarray(from));
  }
  if (!overlong && length > 0) yield Buffer.concat(parts).toString('utf8');
}

/**
 * The pages a pages list names, streaming. Its header line (`"format": "json-pages-1.0"`), lines that
 * are no JSON object, and URLs crawlite does not archive are passed over: the list only says which
 * of the WARCs' URLs are pages.
 */
export async function* readListedPages(path: string, entry: ZipEntry, main: boolean): AsyncGenerator<ListedPage> {
  for await (const line of lines(path, entry)) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null || 'format' in value) continue;
    const { url, title, seed } = value as Record<string, unknown>;
    if (typeof url !== 'string') continue;
    const normalized = normalizeUrl(url);
    if ('error' in normalized) continue;
    yield {
      key: normalized.key,
      // Recorders title a page by its URL when it has no title: that is no title.
      title: typeof title === 'string' && title.trim() !== '' && title.trim() !== url ? title.trim().slice(0, MAX_TITLE) : null,
      seed: seed === true,
      main,
    };
  }
}
