import type { HttpResponse } from '../pipeline/fetcher.js';
import type { HeaderEntry } from './exchange-record.js';

/** Headers that described the bytes on the wire, not the decoded body the browser is given. */
const WIRE_ONLY = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** Header lines as a page is answered with a decoded body: those of the wire left out. */
export function decodedBodyHeaders(lines: readonly HeaderEntry[]): HeaderEntry[] {
  return lines.filter(({ name }) => !WIRE_ONLY.has(name.toLowerCase()));
}

function fromRawBlock(raw: Buffer): HeaderEntry[] {
  return raw
    .toString('latin1')
    .split('\r\n')
    .map((line) => /^([^:]+):[ \t]*(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ name: match[1]!, value: match[2]! }));
}

function fromFlat(headers: Record<string, string>): HeaderEntry[] {
  return Object.entries(headers).flatMap(([name, value]) => value.split('\n').map((line) => ({ name, value: line })));
}

/**
 * How the browser is answered for the page's own URL: with the response the crawl fetched, its header
 * lines as received where the fetcher kept them, so the site sees the document once.
 */
export function documentFulfilment(document: HttpResponse): {
  responseCode: number;
  responseHeaders: HeaderEntry[];
  body: string;
  responsePhrase?: string;
} {
  const lines = document.wire ? fromRawBlock(document.wire.rawHeaders) : fromFlat(document.headers);
  return {
    responseCode: document.status,
    responseHeaders: decodedBodyHeaders(lines),
    body: Buffer.from(document.body).toString('base64'),
    ...(document.wire?.reason ? { responsePhrase: document.wire.reason } : {}),
  };
}

/** The same without its headers but the type: for a header block the browser refuses. */
export function plainFulfilment(document: HttpResponse): { responseCode: number; responseHeaders: HeaderEntry[]; body: string } {
  const type = document.headers['content-type'];
  return {
    responseCode: document.status,
    responseHeaders: type ? [{ name: 'Content-Type', value: type.split('\n', 1)[0]! }] : [],
    body: Buffer.from(document.body).toString('base64'),
  };
}
