import { screenshotType, type ArchivedPage, type ArchiveReader } from '../storage/reader/index.js';
import { requestHead, responseHead, type HttpHead } from './http-blocks.js';
import { sha1Digest } from './warc-digest.js';
import { REQUEST_BODY_LEFT_OUT } from '../storage/writer/index.js';
import type { AppendFile } from './append-file.js';
import type { WarcSummary } from './export-summary.js';
import { newRecordId, warcDate, warcFields, warcRecordBytes, type WarcField } from './warc-record.js';
import { GzipMembers } from './gzip-members.js';
import { warcinfoRecord, type WarcinfoOptions } from './warcinfo.js';

// The archive as a WARC: warcinfo first, then for each URL in URL order its
// captures oldest first (the earlier ones re-crawls replaced, then the
// latest), each a response record, or a revisit, and its request; and a
// metadata record with the latest HTML capture's outlinks. Optionally the
// URLs that failed before any response, as metadata records with their error.
//
// A revisit holds the HTTP header block alone and names the record with the
// payload (WARC-Refers-To, -Target-URI, -Date), as jwarc's WarcRevisit and
// Heritrix write them: identical-payload-digest for a payload already written
// (by the URL's previous capture, or by another URL). A 304 (a revalidated
// capture) is such a revisit too, carrying the status line and header block of
// the response whose payload it confirms: pywb and ReplayWeb.page both take a
// revisit's status and headers from its own block and never look past a 304
// to its original, so a server-not-modified revisit replays as an empty 304.
//
// A capture a browser crawl took a screenshot of is followed by that image as
// Browsertrix writes its screenshots (src/util/screenshots.ts and warcwriter.ts
// `_writeNewResourceRecord`): a `resource` record whose WARC-Target-URI is
// `urn:view:` and the page's URL, its Content-Type the image's, its block the
// image; indexed as warcio's CDXIndexer indexes it, not listed as a page.

export const REVISIT_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export interface WarcOptions extends WarcinfoOptions {
  includeFailed: boolean;
  /** Stops the export between two URLs. */
  signal?: AbortSignal;
}

/** A response, revisit or screenshot (resource) record written: what a CDXJ line says of it. */
export interface WrittenCapture {
  type: 'response' | 'revisit' | 'resource';
  url: string;
  /** WARC-Date. */
  date: string;
  /** The media type without parameters, when known. */
  mime: string | undefined;
  /** The status in the record's block (a revalidation's is its original's); none for a resource record, which holds no HTTP message. */
  status: number | undefined;
  /** WARC-Payload-Digest. */
  digest: string;
  offset: number;
  length: number;
  /** The request's method when it is not GET (an imported POST): the CDXJ key is then not the GET's. */
  method?: string;
  /** That request's body, and its Content-Type. */
  requestBody?: Buffer;
  requestContentType?: string;
}

export interface WarcEvents {
  capture?(capture: WrittenCapture): void | Promise<void>;
  /** A URL crawled as a page that answered HTML with a 2xx status, its latest capture: a page a replay lists (pages.jsonl). */
  page?(page: { url: string; date: string; title: string | null; text: string | undefined }): void | Promise<void>;
  /** After each URL's records: bytes written so far. */
  progress?(bytes: number, responses: number): void;
}

/** The record that holds a payload: what a revisit of it refers to. */
interface Original {
  url: string;
  date: string;
  id: string;
}

/** A URL's capture just written, the record holding its payload, and the status line and headers that describe that payload. */
interface Previous {
  sha256: string;
  original: Original;
  head: HttpHead;
}

const mimeOf = (contentType: string | null): string | undefined => contentType?.split(';', 1)[0]!.trim().toLowerCase() || undefined;

/** Writes every record; the caller holds one read snapshot around it. The gzip threads end with it, whatever the outcome. */
export async function writeWarc(
  archive: ArchiveReader,
  file: AppendFile,
  options: WarcOptions,
  events: WarcEvents = {},
): Promise<WarcSummary> {
  const records = new GzipMembers(file);
  try {
    return await writeRecords(archive, records, file, options, events);
  } finally {
    await records.close();
  }
}

async function writeRecords(
  archive: ArchiveReader,
  records: GzipMembers,
  file: AppendFile,
  options: WarcOptions,
  events: WarcEvents,
): Promise<WarcSummary> {
  const crawl = archive.crawlDefinition();
  const userAgent = typeof crawl?.options.userAgent === 'string' ? crawl.options.userAgent : undefined;
  // One crawl: its records need not say so (an import makes them its own run, as a WARC of any other tool).
  const crawls = archive.crawls();
  const several = crawls.length > 1;
  await records.write(warcinfoRecord(archive, crawl, options, several ? crawls : []));

  // Only bodies stored more than once need remembering: memory grows with duplicates, not with the archive.
  const shared = archive.sharedBodies();
  const firstWritten = new Map<string, Original>();
  const summary: WarcSummary = { responses: 0, revisits: 0, failed: 0, screenshots: 0, screenshotsSkipped: 0, bytes: 0 };

  /** The screenshot of a GET capture, if a browser crawl stored one, right after the capture's records. */
  const writeScreenshot = async (page: ArchivedPage, date: string, responseId: string): Promise<void> => {
    if (!isGet(page)) return;
    const stored = archive.screenshot(page.url, page.fetchedAt);
    if (!stored) return;
    const type = screenshotType(stored.type);
    // A type that is no image type could be anything, a line break and forged WARC fields included.
    if (!type) {
      summary.screenshotsSkipped += 1;
      return;
    }
    const digest = sha1Digest(stored.data);
    const url = `urn:view:${page.fetchUrl}`;
    await records.write(
      warcRecordBytes(
        'resource',
        [
          ['WARC-Record-ID', newRecordId()],
          ['WARC-Date', date],
          ['WARC-Target-URI', url],
          ['WARC-Concurrent-To', responseId],
          ['WARC-Payload-Digest', digest],
          ['Content-Type', type],
        ],
        [stored.data],
      ),
      (written) => events.capture?.({ type: 'resource', url, date, mime: type, status: undefined, digest, ...written }),
    );
    summary.screenshots += 1;
  };

  /** Writes one capture (response or revisit, and its request); returns what the URL's next capture compares with. */
  const writeCapture = async (
    page: ArchivedPage,
    previous: Previous | undefined,
  ): Promise<{ previous: Previous; responseId: string; date: string }> => {
    const date = warcDate(page.fetchedAt);
    const digest = page.sha1 ?? sha1Digest(page.body);
    const responseId = newRecordId();
    const requestId = newRecordId();
    const common: WarcField[] = [
      ['WARC-Date', date],
      ['WARC-Target-URI', page.fetchUrl],
      ['WARC-IP-Address', page.remoteIp ?? undefined],
    ];
    const samePayload = previous?.sha256 === page.sha256 ? previous.original : undefined;
    const original = page.revalidated
      ? samePayload
      : (samePayload ?? (page.body.length > 0 && shared.has(page.sha256) ? firstWritten.get(page.sha256) : undefined));
    const revisit = page.revalidated || original !== undefined;
    const head = page.revalidated ? (samePayload && previous ? previous.head : confirmedHead(page)) : responseHead(page);
    const cut = truncation(page.truncated);
    const fields: WarcField[] = [['WARC-Record-ID', responseId], ...common, ['WARC-Concurrent-To', requestId]];
    if (revisit) {
      fields.push(
        ['WARC-Profile', REVISIT_PROFILE],
        ['WARC-Refers-To', original?.id],
        ['WARC-Refers-To-Target-URI', original?.url],
        ['WARC-Refers-To-Date', original?.date],
      );
    }
    fields.push(
      ['WARC-Payload-Digest', digest],
      ['WARC-Truncated', cut.response],
      ['Content-Type', 'application/http; msgtype=response'],
      ['Crawlite-Headers', head.rebuilt ? 'rebuilt' : undefined],
      ['Crawlite-Crawl', several ? String(page.crawl ?? 1) : undefined],
      // A 304 written as a revisit of what it confirmed: an import makes it a revalidation again.
      ['Crawlite-Revalidated', page.revalidated ? '304' : undefined],
    );
    const captured: Omit<WrittenCapture, 'offset' | 'length'> = {
      type: revisit ? 'revisit' : 'response',
      url: page.fetchUrl,
      date,
      mime: mimeOf(page.contentType),
      status: page.revalidated ? statusOf(head) : page.status,
      digest,
      ...otherMethod(page),
    };
    await records.write(
      warcRecordBytes(revisit ? 'revisit' : 'response', fields, revisit ? [head.bytes] : [head.bytes, page.body]),
      (written) => events.capture?.({ ...captured, ...written }),
    );
    const self: Original = { url: page.fetchUrl, date, id: responseId };
    if (!revisit && page.body.length > 0 && shared.has(page.sha256) && !firstWritten.has(page.sha256)) firstWritten.set(page.sha256, self);
    summary.responses += 1;
    if (revisit) summary.revisits += 1;

    const request = requestHead(page, userAgent);
    await records.write(
      warcRecordBytes(
        'request',
        [
          ['WARC-Record-ID', requestId],
          ...common,
          ['WARC-Concurrent-To', responseId],
          ['Content-Type', 'application/http; msgtype=request'],
          ['WARC-Truncated', cut.request ? 'length' : undefined],
          ['Crawlite-Headers', request.rebuilt ? 'rebuilt' : undefined],
        ],
        page.requestBody ? [request.bytes, page.requestBody] : [request.bytes],
      ),
    );
    await writeScreenshot(page, date, responseId);
    // A 304's payload is its original's; a revisit carries on pointing at the record that holds it.
    return { previous: { sha256: page.sha256, original: revisit && original ? original : self, head }, responseId, date };
  };

  for (const page of archive.pages(undefined, { outlinks: true })) {
    options.signal?.throwIfAborted();
    let previous: Previous | undefined;
    for (const earlier of archive.earlierCaptures(page.url)) {
      options.signal?.throwIfAborted();
      const written = await writeCapture({ ...earlier, fetchUrl: page.fetchUrl }, previous);
      // A POST's answer is no earlier version of the page: the next GET capture compares with the last GET one.
      if (isGet(earlier)) previous = written.previous;
    }
    const { responseId, date } = await writeCapture(page, previous);
    if (isHtml(page)) {
      const listed = isListedPage(page);
      // The page is listed once its records are written, in the order of the pages.
      // The text is read only for a page listed, and only when pages are written (a WACZ).
      await records.write(outlinksRecord(page, date, responseId), () =>
        listed ? events.page?.({ url: page.fetchUrl, date, title: page.title, text: archive.pageText(page.url) }) : undefined,
      );
    }
    events.progress?.(file.offset, summary.responses);
  }

  // URLs only requests other than GET were captured for (imported POSTs): no page, their captures all the same.
  for (const capture of archive.capturesWithoutPage()) {
    options.signal?.throwIfAborted();
    await writeCapture(capture, undefined);
    events.progress?.(file.offset, summary.responses);
  }

  if (options.includeFailed) {
    const now = new Date().toISOString();
    for (const url of archive.urlsWithoutResponse('failed')) {
      options.signal?.throwIfAborted();
      const block = warcFields([
        ['crawlite-state', url.state],
        ['crawlite-tries', String(url.tries)],
        ['crawlite-error', url.error ?? 'unknown'],
      ]);
      await records.write(
        warcRecordBytes(
          'metadata',
          [
            ['WARC-Record-ID', newRecordId()],
            ['WARC-Date', now],
            ['WARC-Target-URI', url.url],
            ['Content-Type', 'application/warc-fields'],
          ],
          [block],
        ),
      );
      summary.failed += 1;
    }
  }
  await records.flush();
  summary.bytes = file.offset;
  return summary;
}

/** A capture's `truncated`: the response's WARC-Truncated, and whether its request's body was left out (an import's mark). */
function truncation(truncated: string | null): { response: string | undefined; request: boolean } {
  const words = truncated?.split(' ') ?? [];
  const request = words.at(-1) === REQUEST_BODY_LEFT_OUT;
  return { response: (request ? words.slice(0, -1) : words).join(' ') || undefined, request };
}

const isGet = (page: ArchivedPage): boolean => (page.requestMethod ?? 'GET').toUpperCase() === 'GET';

/** What a CDXJ line needs of a capture of a request other than GET. */
function otherMethod(page: ArchivedPage): Pick<WrittenCapture, 'method' | 'requestBody' | 'requestContentType'> {
  if (isGet(page)) return {};
  const method = page.requestMethod!.toUpperCase();
  const contentType = page.requestHeaders ? headerValue(page.requestHeaders, 'content-type') : undefined;
  return {
    method,
    ...(page.requestBody ? { requestBody: page.requestBody } : {}),
    ...(contentType ? { requestContentType: contentType } : {}),
  };
}

/** One header's value in a header block as received ('Name: value' lines), the first if repeated. */
function headerValue(block: Buffer, name: string): string | undefined {
  for (const line of block.toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

const isHtml = (page: ArchivedPage): boolean => HTML_TYPES.has(mimeOf(page.contentType) ?? '');

// As Browsertrix and py-wacz list pages: robots.txt, a frame's document, an error page or a redirect is no page to open.
const isListedPage = (page: ArchivedPage): boolean => page.kind === 'page' && page.status >= 200 && page.status < 300;

/**
 * The head of the response a 304 confirms when its record is not at hand: the stored status and headers
 * (a revalidated capture keeps its original's), rebuilt, since the wire columns are the 304's.
 */
function confirmedHead(page: ArchivedPage): HttpHead {
  return responseHead({ ...page, rawHeaders: null, httpVersion: null, reason: null });
}

/** The status code in a status line. */
const statusOf = (head: HttpHead): number => Number(/^\S+ (\d{3})/.exec(head.bytes.toString('latin1'))?.[1] ?? 200);

/** Heritrix's form: one `outlink: URL kind` line per link found on the page. */
function outlinksRecord(page: ArchivedPage, date: string, responseId: string): Buffer {
  const block = warcFields((page.outlinks ?? []).map((link) => ['outlink', `${link.url} ${link.kind}`]));
  return warcRecordBytes(
    'metadata',
    [
      ['WARC-Record-ID', newRecordId()],
      ['WARC-Date', date],
      ['WARC-Target-URI', page.fetchUrl],
      ['WARC-Concurrent-To', responseId],
      ['Content-Type', 'application/warc-fields'],
    ],
    [block],
  );
}
