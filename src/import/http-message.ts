import { MAX_RESPONSE_HEAD_BYTES } from '../pipeline/crawl-limits.js';

/** An HTTP message as a WARC record holds it: the start line, the header block as written, the body as sent. */
export interface HttpMessage {
  /** The three parts of the start line: 'HTTP/1.1', '200', 'OK' for a response; 'GET', '/a?b', 'HTTP/1.1' for a request. */
  startLine: [string, string, string];
  /** 'Name: value' lines, each with its line end, without the start line and the blank line. */
  rawHeaders: Buffer;
  /** Names lower-cased, in order, repeats kept. */
  headers: [string, string][];
  body: Buffer;
}

/** Longest line end: CRLF, LF, or CRCRLF (some writers', as warcio reads them). */
const MAX_LINE_END = 3;

/** The first blank line: where the line before it ends (after its LF) and where the body starts; undefined when none. */
function blankLine(searched: Buffer): { headEnd: number; bodyStart: number } | undefined {
  for (let lf = searched.indexOf(0x0a); lf >= 0; lf = searched.indexOf(0x0a, lf + 1)) {
    let at = lf + 1;
    while (at < searched.length && at - lf < MAX_LINE_END && searched[at] === 0x0d) at++;
    if (searched[at] === 0x0a) return { headEnd: lf + 1, bodyStart: at + 1 };
  }
  return undefined;
}

/** A message whose start line and headers are longer than a crawl reads (MAX_RESPONSE_HEAD_BYTES): not read. */
export interface HeadTooLarge {
  headTooLarge: true;
}

/**
 * Splits an HTTP message into start line, header block and body; undefined when it has no start
 * line. Only the first MAX_RESPONSE_HEAD_BYTES are searched for the blank line: a longer head is
 * not read at all, as a crawl would not read it.
 */
export function parseHttpMessage(block: Buffer): HttpMessage | HeadTooLarge | undefined {
  const blank = blankLine(block.subarray(0, MAX_RESPONSE_HEAD_BYTES + 2 * MAX_LINE_END));
  // A message without a blank line is all header (a HEAD response, a cut record).
  let head = blank ? block.subarray(0, blank.headEnd) : block;
  if (head.byteLength > MAX_RESPONSE_HEAD_BYTES) return { headTooLarge: true };
  const body = blank ? block.subarray(blank.bodyStart) : Buffer.alloc(0);
  // Lines ending CRCRLF are read as warcio reads them: as CRLF, so the block as kept is one HTTP reads.
  if (head.includes('\r\r\n')) head = Buffer.from(head.toString('latin1').replace(/\r+\n/g, '\r\n'), 'latin1');
  const firstEnd = head.indexOf(0x0a);
  const startText = head
    .subarray(0, firstEnd < 0 ? head.length : firstEnd)
    .toString('latin1')
    .replace(/\r$/, '');
  const match = /^(\S+) (\S+)(?: (.*))?$/.exec(startText);
  if (!match) return undefined;
  const rawHeaders = firstEnd < 0 ? Buffer.alloc(0) : head.subarray(firstEnd + 1);
  return { startLine: [match[1]!, match[2]!, match[3] ?? ''], rawHeaders, headers: headerLines(rawHeaders), body };
}

/** A header block's fields: names lower-cased, in order, repeats kept, folded lines joined. */
export function headerLines(rawHeaders: Buffer): [string, string][] {
  const headers: [string, string][] = [];
  for (const line of rawHeaders.toString('latin1').split(/\r?\n/)) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && headers.length) {
      headers[headers.length - 1]![1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return headers;
}

const LINE_JOINED = new Set(['set-cookie', 'location']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Header bytes come as Latin-1 characters; a Location in UTF-8 (as browsers read it) is decoded as such. */
function utf8IfValid(value: string): string {
  try {
    return strictUtf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/** The headers as the crawl stores them: lower-case names, repeats joined with ", " (Set-Cookie and Location with "\n"). */
export function headersObject(headers: [string, string][]): Record<string, string> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const values = grouped.get(name) ?? [];
    values.push(name === 'location' ? utf8IfValid(value) : value);
    grouped.set(name, values);
  }
  const flat: Record<string, string> = {};
  for (const [name, values] of grouped) flat[name] = values.join(LINE_JOINED.has(name) ? '\n' : ', ');
  return flat;
}

/** The body of a chunked message without its framing; undefined when it is not well-formed chunked data (already de-chunked by the WARC's writer). */
export function dechunk(body: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf(0x0a, at);
    if (lineEnd < 0) return undefined;
    const sizeText = body.subarray(at, lineEnd).toString('latin1').replace(/\r$/, '').split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) return undefined;
    const size = parseInt(sizeText, 16);
    at = lineEnd + 1;
    if (size === 0) return Buffer.concat(parts);
    if (at + size > body.length) return undefined;
    parts.push(body.subarray(at, at + size));
    at += size;
    if (body[at] === 0x0d) at++;
    if (body[at] !== 0x0a) return undefined;
    at++;
  }
}
