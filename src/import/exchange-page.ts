import { DecodedTooLargeError } from '../http/decode-content.js';
import { discover } from '../pipeline/discover.js';
import { charsetOf } from '../html/index.js';
import { MAX_RESPONSE_HEAD_BYTES } from '../pipeline/crawl-limits.js';
import { normalizeUrl, type NormalizedUrl } from '../url/index.js';
import { redirectTarget } from '../pipeline/operators/follow-redirects.js';
import { needsParse, type ParseJob, type ParseResult, type ParseSettings } from '../pipeline/parse/parse-response.js';
import type { ClaimedUrl, DiscoveredUrl, Reason } from '../pipeline/ports.js';
import type { PageFacts } from '../pipeline/crawl-item.js';
import {
  REQUEST_BODY_LEFT_OUT,
  type ImportedPage,
  type ImportedResponse,
  type ImportSink,
  type RefersTo,
} from '../storage/writer/index.js';
import { dechunk, headerLines, headersObject, parseHttpMessage, type HeadTooLarge, type HttpMessage } from './http-message.js';
import { originalHeaderBlock } from './original-headers.js';
import { storedBody } from './stored-body.js';
import { targetUri, type Exchange } from './pair-exchanges.js';
import type { WarcRecord } from './warc-reader.js';

/** Why a record was not imported: a code for the report and a sentence. */
export type ImportSkip = Reason;

export interface ExchangePage {
  page: ImportedPage;
  /** Resolved from a revisit record. */
  revisit: boolean;
}

/** WARC-Truncated names a reason in a word; a longer value is cut, so a hostile record cannot bloat every row. */
const MAX_TRUNCATED_CHARS = 64;

const NEVER_EXPIRES = { token: 'import', expiresAt: Number.POSITIVE_INFINITY };

const isTooLarge = (message: HttpMessage | HeadTooLarge | undefined): message is HeadTooLarge =>
  message !== undefined && 'headTooLarge' in message;

const HEAD_TOO_LARGE: ImportSkip = {
  code: 'headers_too_large',
  message: `an HTTP response whose status line and headers are longer than ${MAX_RESPONSE_HEAD_BYTES} bytes`,
};

/** A WARC-Date as WARC writers spell it: UTC, seconds, an optional fraction of up to 9 digits. */
const WARC_DATE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

export function isoDate(value: string | undefined): string | null {
  // WARC 1.1 dates may carry any fraction of a second: it is kept, so two records a microsecond apart stay
  // apart and an export writes the date back as read. Fewer than 3 digits are padded to the crawl's ms.
  const exact = value === undefined ? null : WARC_DATE.exec(value.trim());
  if (exact && !Number.isNaN(Date.parse(`${exact[1]}Z`))) return `${exact[1]}.${(exact[2] ?? '').padEnd(3, '0')}Z`;
  const time = value ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** The status line and headers a response is stored with, and its decoded body. */
interface Answer {
  message: Pick<HttpMessage, 'rawHeaders'> & { startLine: [string, string, string] };
  headers: Record<string, string>;
  body: Buffer;
  /** What the capture's columns cannot say (see migrations/0016). */
  notes?: string[];
  /** No status line and header block were recorded (a resource record's payload): `message` is made up. */
  unrecorded?: true;
}

/**
 * A resource record holds no HTTP message: its block is the payload and its Content-Type the payload's
 * type, and pywb and warcio serve it as a 200. So is it stored, said so (the note `resource`).
 */
function resourceAnswer(record: Exchange['response']): Answer {
  const contentType = record.fields.get('content-type');
  return {
    message: { startLine: ['', '200', ''], rawHeaders: Buffer.alloc(0) },
    headers: contentType ? { 'content-type': contentType } : {},
    body: record.content,
    notes: ['resource'],
    unrecorded: true,
  };
}

async function decodedAnswer(message: HttpMessage, maxBodyBytes: number): Promise<Answer | ImportSkip> {
  const headers = headersObject(message.headers);
  let body = message.body;
  // wget keeps the chunked framing as it came over the wire; other writers remove it and some keep the header.
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body) ?? body;
  let notes: string[] | undefined;
  try {
    const stored = await storedBody(body, headers['content-encoding'], maxBodyBytes);
    body = stored.body;
    if (stored.note) notes = [stored.note];
  } catch (error) {
    if (error instanceof DecodedTooLargeError) return { code: 'body_too_large', message: `${error.message} (--max-body)` };
    return { code: 'undecodable_body', message: error instanceof Error ? error.message : String(error) };
  }
  if (body.byteLength > maxBodyBytes)
    return { code: 'body_too_large', message: `body of ${body.byteLength} bytes (--max-body ${maxBodyBytes})` };
  // The body was read with the headers as the record declares them; the archive keeps the headers as received.
  const received = originalHeaderBlock(message.rawHeaders);
  if (received === message.rawHeaders) return { message, headers, body, ...(notes ? { notes } : {}) };
  return {
    message: { ...message, rawHeaders: received },
    headers: headersObject(headerLines(received)),
    body,
    ...(notes ? { notes } : {}),
  };
}

/**
 * A request as sent: a chunked body without its framing (as a response's; wget keeps it as it went over the
 * wire), so a replay matches it against the body a browser sends and keys it as pywb does; and the header
 * block as sent, where a crawlite export described the de-chunked body (see requestHead in export).
 */
function sentRequest(message: HttpMessage | undefined): HttpMessage | undefined {
  if (!message) return undefined;
  const chunked = message.headers.some(([name, value]) => name === 'transfer-encoding' && /chunked/i.test(value));
  const body = chunked ? (dechunk(message.body) ?? message.body) : message.body;
  const rawHeaders = originalHeaderBlock(message.rawHeaders);
  return body === message.body && rawHeaders === message.rawHeaders ? message : { ...message, body, rawHeaders };
}

/** A revisit whose original is not found: set aside at its turn, reported only if still not found after the last file. */
export const REVISIT_UNRESOLVED: ImportSkip = {
  code: 'revisit_unresolved',
  message: 'a revisit record whose original is in none of the WARC files imported',
};

/** What a revisit record says of its original (`uri` is the record's own URL, normalized). */
export function refersToOf(record: WarcRecord, uri: string): RefersTo {
  const { fields } = record;
  const refersTo = normalizeUrl(fields.get('warc-refers-to-target-uri')?.replace(/^<(.*)>$/, '$1') ?? uri);
  return {
    recordId: fields.get('warc-refers-to'),
    digest: fields.get('warc-payload-digest'),
    uri: 'error' in refersTo ? uri : refersTo.url,
    key: 'error' in refersTo ? undefined : refersTo.key,
    date: isoDate(fields.get('warc-refers-to-date')) ?? undefined,
  };
}

/** A revisit's answer: the payload of the record it refers to, with its own status and headers when it has any (not for a 304). */
function revisitAnswer(exchange: Exchange, uri: string, sink: ImportSink): Answer | ImportSkip {
  const { content } = exchange.response;
  const original = sink.findPayload(refersToOf(exchange.response, uri));
  if (!original) return REVISIT_UNRESOLVED;
  const body = sink.bodyOf(original.bodyId);
  const own = content.byteLength ? parseHttpMessage(content) : undefined;
  if (isTooLarge(own)) return HEAD_TOO_LARGE;
  if (own && own.startLine[0].startsWith('HTTP/') && own.startLine[1] !== '304') {
    return { message: own, headers: headersObject(own.headers), body };
  }
  const stored = sink.responseOf(original.urlId);
  if (!stored) return { code: 'revisit_unresolved', message: 'the response a revisit record refers to is not in the archive' };
  return {
    message: {
      startLine: [stored.httpVersion ?? 'HTTP/1.1', String(stored.status), stored.reason ?? ''],
      rawHeaders: stored.rawHeaders ?? Buffer.alloc(0),
    },
    headers: JSON.parse(stored.headers) as Record<string, string>,
    body,
    ...(stored.rawHeaders === null ? { unrecorded: true as const } : {}),
  };
}

/** A record read as far as it can be without the archive: its URL, and its answer with the status and the decoded body. */
export interface ReadExchange {
  exchange: Exchange;
  normalized: NormalizedUrl;
  revisit: boolean;
  answer: Answer;
  status: number;
}

/** The URL as the archive knows it now (its kind, depth and redirect hops): what reading its response depends on. */
export function claimOf(read: ReadExchange, sink: ImportSink): ClaimedUrl {
  const { normalized } = read;
  const known = sink.known(normalized.key);
  return {
    id: known?.id ?? 0,
    url: normalized.url,
    key: normalized.key,
    origin: normalized.origin,
    kind: known?.kind ?? (new URL(normalized.url).pathname === '/robots.txt' ? 'robots' : 'page'),
    depth: known?.depth ?? 0,
    redirectHops: known?.redirectHops ?? 0,
    tries: 0,
    lease: NEVER_EXPIRES,
  };
}

/** Two claims that read a response alike: parsing depends on nothing else of them. */
export const readAlike = (a: ClaimedUrl, b: ClaimedUrl): boolean =>
  a.kind === b.kind && a.depth === b.depth && a.redirectHops === b.redirectHops;

/** What the crawl's parse is to read of the response, if anything: as in a crawl, only a successful response is read for links. */
export function parseJobOf(read: ReadExchange, claim: ClaimedUrl, body: Buffer): ParseJob | undefined {
  const contentType = read.answer.headers['content-type'] ?? null;
  if (read.status < 200 || read.status > 299 || !needsParse(claim, contentType)) return undefined;
  return { claim, contentType, body };
}

/**
 * Reads a response or revisit record as far as it can without the crawl's
 * parse: its target URI, its HTTP message, and its body decoded as the
 * crawler decodes it. A revisit's payload is its original's, so it is read
 * from the archive (`sink`).
 */
export async function readExchange(exchange: Exchange, sink: ImportSink, settings: ParseSettings): Promise<ReadExchange | ImportSkip> {
  const { response: record } = exchange;
  const uri = targetUri(record);
  if (!uri) return { code: 'no_target_uri', message: 'a record without WARC-Target-URI' };
  const normalized = normalizeUrl(uri);
  if ('error' in normalized) return { code: 'not_http', message: `not an http(s) URL: ${uri.slice(0, 200)}` };
  const revisit = record.type === 'revisit';
  let answer: Answer | ImportSkip;
  if (revisit) {
    answer = revisitAnswer(exchange, normalized.url, sink);
  } else if (record.type === 'resource') {
    answer = resourceAnswer(record);
  } else {
    const message = parseHttpMessage(record.content);
    if (isTooLarge(message)) return HEAD_TOO_LARGE;
    if (!message || !message.startLine[0].startsWith('HTTP/'))
      return { code: 'not_http', message: `a response record that holds no HTTP response (${uri.slice(0, 200)})` };
    answer = await decodedAnswer(message, settings.maxBodyBytes);
  }
  if ('code' in answer) return answer;
  const status = Number(answer.message.startLine[1]);
  if (!Number.isInteger(status) || status < 100 || status > 999)
    return { code: 'bad_status_line', message: `no status code in ${JSON.stringify(answer.message.startLine.join(' '))}` };
  return { exchange, normalized, revisit, answer, status };
}

/**
 * The page a crawl would have stored for the record: the response read
 * (`read`, its body as `body`: a parse thread hands it back), what the
 * crawl's parse found in it (`parsed`, when parseJobOf gave a job; `digests`
 * are the body's when the parse computed them), and the
 * crawl's redirect rule, with the URL's depth and kind as the archive knows them.
 */
export function exchangePage(
  read: ReadExchange,
  claim: ClaimedUrl,
  body: Buffer,
  parsed: ParseResult | undefined,
  settings: ParseSettings,
  digests: { sha256: Buffer; sha1: Buffer; stored?: Buffer } | undefined,
): ExchangePage {
  const { exchange, normalized, answer, status, revisit } = read;
  const { response: record, request } = exchange;
  const contentType = answer.headers['content-type'] ?? null;
  const location = answer.headers.location?.split('\n')[0] ?? null;
  let state: 'done' | 'failed' = 'done';
  let error: Reason | undefined;
  let facts: PageFacts | undefined;
  const discovered: DiscoveredUrl[] = [];
  const hop = redirectTarget({ status, location }, claim.url, claim.redirectHops, settings.maxRedirects);
  if (hop && 'error' in hop) {
    state = 'failed';
    error = hop.error;
  } else if (hop) {
    discovered.push(discover(hop.next, 'redirect', claim.kind, claim.depth, claim.redirectHops + 1));
  }
  if (parsed?.error) {
    state = 'failed';
    error = parsed.error;
  } else if (parsed) {
    facts = parsed.page;
    discovered.push(...parsed.found);
  } else if (status >= 200 && status <= 299) {
    facts = { charset: charsetOf(contentType) };
  }
  // A request too large to read is kept as if the WARC held none; so is one whose start line is a status line
  // (a recorder's mistake: py-wacz's example-warcinfo-metadata.warc), which warcio and pywb take for a GET.
  const parsedRequest = request ? parseHttpMessage(request.content) : undefined;
  const noRequest = isTooLarge(parsedRequest) || /^HTTP\//i.test(parsedRequest?.startLine[0] ?? '');
  const requestMessage = noRequest ? undefined : sentRequest(parsedRequest);
  const otherThanGet = requestMessage !== undefined && requestMessage.startLine[0].toUpperCase() !== 'GET';
  // A request record too large to hold was read as far as its headers: its body is left out, and the capture says so.
  // One that says it is cut (WARC-Truncated, as an export writes it for such a request) keeps what it holds, said so too.
  // So is a body over --max-body in a record small enough to read whole (a record may hold 1 MiB beyond it): bodies
  // over the limit are not kept, the request's as the response's.
  const bodyLeftOut = otherThanGet && (request?.cutFrom !== undefined || requestMessage.body.byteLength > settings.maxBodyBytes);
  const requestCut = bodyLeftOut || (otherThanGet && request?.fields.has('warc-truncated') === true);
  const responseCut = record.fields.get('warc-truncated')?.trim().slice(0, MAX_TRUNCATED_CHARS) || null;
  const fetchedAt = isoDate(record.fields.get('warc-date')) ?? new Date().toISOString();
  const unrecorded = answer.unrecorded === true;
  const response: ImportedResponse = {
    status,
    headers: answer.headers,
    contentType,
    charset: facts ? facts.charset : charsetOf(contentType),
    location,
    body,
    ...digests,
    fetchedAt,
    elapsedMs: 0,
    title: facts?.title ?? null,
    canonical: facts?.canonical ?? null,
    robots: facts?.robots?.join(',') ?? null,
    linksDropped: facts?.linksDropped ?? 0,
    ...(facts?.text ? { text: facts.text } : {}),
    httpVersion: unrecorded ? null : answer.message.startLine[0],
    reason: unrecorded ? null : answer.message.startLine[2],
    rawHeaders: unrecorded ? null : answer.message.rawHeaders,
    requestMethod: requestMessage?.startLine[0] ?? null,
    requestTarget: requestMessage?.startLine[1] ?? null,
    requestHeaders: requestMessage?.rawHeaders ?? null,
    remoteIp: record.fields.get('warc-ip-address') ?? null,
    startedAt: (request && isoDate(request.fields.get('warc-date'))) ?? fetchedAt,
    truncated: requestCut ? [responseCut, REQUEST_BODY_LEFT_OUT].filter(Boolean).join(' ') : responseCut,
    // A GET's body is nothing a replay or an export needs; another method's is what it sent.
    requestBody: otherThanGet && !bodyLeftOut && requestMessage.body.byteLength > 0 ? requestMessage.body : null,
    ...(answer.notes ? { notes: answer.notes } : {}),
  };
  const page: ImportedPage = {
    url: normalized.url,
    key: normalized.key,
    origin: normalized.origin,
    kind: claim.kind,
    depth: claim.depth,
    redirectHops: claim.redirectHops,
    state,
    response,
    discovered,
  };
  if (normalized.pathKey) page.pathKey = normalized.pathKey;
  if (error) page.error = error;
  return { page, revisit };
}
