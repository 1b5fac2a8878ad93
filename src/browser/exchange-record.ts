import type { BrowserExchange } from '../pipeline/renderer.js';

/** A header as DevTools reports it: one entry per header line, in order, names as sent. */
export interface HeaderEntry {
  name: string;
  value: string;
}

/** The request of a paused fetch, as DevTools reports it (the fields read here). */
export interface PausedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData?: string;
  postDataEntries?: { bytes?: string }[];
}

/** Header values whose repeats are kept one per line, as src/http keeps them: a comma may be part of one value. */
const LINE_JOINED = new Set(['set-cookie', 'location']);

/** One entry per header line: DevTools joins some repeats into one value with "\n". */
export function headerLines(entries: readonly HeaderEntry[]): HeaderEntry[] {
  return entries.flatMap((entry) => entry.value.split('\n').map((value) => ({ name: entry.name, value })));
}

/** Lower-case names, repeats joined like a fetched response's: ", ", or "\n" for set-cookie and location. */
export function flattenHeaders(lines: readonly HeaderEntry[]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const { name, value } of lines) {
    const key = name.toLowerCase();
    const before = flat[key];
    flat[key] = before === undefined ? value : `${before}${LINE_JOINED.has(key) ? '\n' : ', '}${value}`;
  }
  return flat;
}

function headerBlock(lines: readonly HeaderEntry[]): Buffer {
  return Buffer.from(lines.map(({ name, value }) => `${name}: ${value}\r\n`).join(''), 'latin1');
}

/** What a POST or PUT sent, if the browser told it. */
export function requestBody(request: PausedRequest): Uint8Array | undefined {
  if (request.postDataEntries?.length) {
    const body = Buffer.concat(request.postDataEntries.map((entry) => Buffer.from(entry.bytes ?? '', 'base64')));
    return body.length > 0 ? body : undefined;
  }
  return request.postData ? Buffer.from(request.postData, 'utf8') : undefined;
}

export interface ResponseSeen {
  resourceType: string;
  request: PausedRequest;
  status: number;
  statusText: string;
  headers: readonly HeaderEntry[];
  body: Buffer;
  /** When the request was let go to the network (epoch ms). */
  startedAt: number;
}

/**
 * The exchange as the archive keeps it. The browser does not tell the HTTP version nor the headers its
 * network stack adds (Connection, Accept-Encoding, cookies): the request block is the page's headers
 * under a Host line, and the version is HTTP/1.1.
 */
export function toExchange(seen: ResponseSeen): BrowserExchange {
  const lines = headerLines(seen.headers);
  const headers = flattenHeaders(lines);
  const url = new URL(seen.request.url);
  const requestLines = Object.entries(seen.request.headers).map(([name, value]) => ({ name, value }));
  if (!requestLines.some(({ name }) => name.toLowerCase() === 'host')) requestLines.unshift({ name: 'Host', value: url.host });
  const location = headers.location?.split('\n', 1)[0];
  const body = requestBody(seen.request);
  return {
    url: seen.request.url,
    resourceType: seen.resourceType,
    method: seen.request.method,
    ...(body && seen.request.method !== 'GET' ? { requestBody: body } : {}),
    response: {
      status: seen.status,
      headers,
      ...(location !== undefined ? { location } : {}),
      body: seen.body,
      fetchedAt: new Date().toISOString(),
      elapsedMs: Math.max(0, Date.now() - seen.startedAt),
      wire: {
        httpVersion: 'HTTP/1.1',
        reason: seen.statusText,
        rawHeaders: headerBlock(lines),
        requestMethod: seen.request.method,
        requestTarget: url.pathname + url.search,
        requestHeaders: headerBlock(requestLines),
        startedAt: new Date(seen.startedAt).toISOString(),
      },
    },
  };
}
