import { STATUS_CODES } from 'node:http';
import type { ArchivedPage } from '../storage/reader/index.js';

// The HTTP messages inside request and response records. The payload written
// is the stored body, with Content-Encoding already undone, so the response's
// header block is corrected to describe it: the codings and the length as
// received are kept under X-Crawlite-Original-* names, where they were, so the
// block as received can be had again (crawlite import does; see
// src/import/original-headers.ts).

const CRLF = '\r\n';

/** Put before a header's name as received: the header as received, which the record's block no longer has. */
export const ORIGINAL_PREFIX = 'X-Crawlite-Original-';
/** The value of X-Crawlite-Original-Content-Length when none was received (the block's Content-Length was added). */
export const NONE_RECEIVED = 'none';

/** Header values whose repeats the archive keeps one per line (see the `headers` column). */
const LINE_JOINED = new Set(['set-cookie', 'location']);

export interface HttpHead {
  /** Status or request line, header lines, and the blank line. */
  bytes: Buffer;
  /** Rebuilt from the archive's JSON headers: the block as received was not recorded. */
  rebuilt: boolean;
}

/** The block's lines, latin1 (one char per byte), without their CRLFs. */
function lines(block: Buffer): string[] {
  return block
    .toString('latin1')
    .split(CRLF)
    .filter((line) => line !== '');
}

const nameOf = (line: string): string => {
  const colon = line.indexOf(':');
  // A line starting with whitespace continues the previous one (obsolete folding): no name of its own.
  return colon <= 0 || /^[ \t]/.test(line) ? '' : line.slice(0, colon).trim().toLowerCase();
};
const valueOf = (line: string): string => line.slice(line.indexOf(':') + 1).trim();

/** Renames the codings and fixes Content-Length to the payload's length, each in its place. */
function describePayload(headerLines: string[], payloadLength: number): string[] {
  const out: string[] = [];
  let lengthWritten = false;
  for (const line of headerLines) {
    const name = nameOf(line);
    // The name as received, case kept, after the prefix.
    const original = () => `${ORIGINAL_PREFIX}${line.slice(0, line.indexOf(':')).trim()}: ${valueOf(line)}`;
    if (name === 'content-encoding' || name === 'transfer-encoding') out.push(original());
    else if (name === 'content-length' && lengthWritten) out.push(original());
    else if (name === 'content-length') {
      lengthWritten = true;
      out.push(`${line.slice(0, line.indexOf(':'))}: ${payloadLength}`);
      if (valueOf(line) !== String(payloadLength)) out.push(`${ORIGINAL_PREFIX}Content-Length: ${valueOf(line)}`);
    } else out.push(line);
  }
  if (!lengthWritten) out.push(`Content-Length: ${payloadLength}`, `${ORIGINAL_PREFIX}Content-Length: ${NONE_RECEIVED}`);
  return out;
}

/**
 * A request's header lines for its de-chunked body: Transfer-Encoding renamed in place and the length added, as
 * for a response (a request body's Content-Encoding is kept: the body is stored as sent, not decoded).
 */
function describeRequestBody(headerLines: string[], bodyLength: number): string[] {
  const out = headerLines.map((line) =>
    nameOf(line) === 'transfer-encoding' ? `${ORIGINAL_PREFIX}${line.slice(0, line.indexOf(':')).trim()}: ${valueOf(line)}` : line,
  );
  if (out.some((line) => nameOf(line) === 'content-length')) return out;
  return [...out, `Content-Length: ${bodyLength}`, `${ORIGINAL_PREFIX}Content-Length: ${NONE_RECEIVED}`];
}

/** Header lines from the JSON headers: lower-case names as stored, line-joined repeats split again. */
function rebuiltHeaderLines(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const values = LINE_JOINED.has(name) ? value.split('\n') : [value];
    // Values were read as latin1 (one char per byte), except Location, kept as UTF-8 text when valid: back to its bytes.
    for (const one of values) out.push(`${name}: ${name === 'location' ? Buffer.from(one, 'utf8').toString('latin1') : one}`);
  }
  return out;
}

/** The response's status line and header block, describing the stored body. */
export function responseHead(page: ArchivedPage): HttpHead {
  const version = page.httpVersion ?? 'HTTP/1.1';
  const reason = page.reason ?? STATUS_CODES[page.status] ?? '';
  const rebuilt = page.rawHeaders === null;
  const headerLines = rebuilt ? rebuiltHeaderLines(page.headers) : lines(page.rawHeaders!);
  const text = [`${version} ${page.status} ${reason}`, ...describePayload(headerLines, page.body.length)].join(CRLF) + CRLF + CRLF;
  return { bytes: Buffer.from(text, 'latin1'), rebuilt };
}

/**
 * The request as sent; when it was not recorded, a GET with the Host (and User-Agent when the crawl set one).
 * A body sent chunked is stored without its framing, so its Transfer-Encoding is renamed and its length given.
 */
export function requestHead(page: ArchivedPage, userAgent: string | undefined): HttpHead {
  const url = new URL(page.fetchUrl);
  const method = page.requestMethod ?? 'GET';
  const target = page.requestTarget ?? `${url.pathname}${url.search}`;
  const rebuilt = page.requestHeaders === null;
  const sent = rebuilt ? [`Host: ${url.host}`, ...(userAgent ? [`User-Agent: ${userAgent}`] : [])] : lines(page.requestHeaders!);
  const framed = page.requestBody && sent.some((line) => nameOf(line) === 'transfer-encoding');
  const headerLines = framed ? describeRequestBody(sent, page.requestBody!.length) : sent;
  const text = [`${method} ${target} HTTP/1.1`, ...headerLines].join(CRLF) + CRLF + CRLF;
  return { bytes: Buffer.from(text, 'latin1'), rebuilt };
}
