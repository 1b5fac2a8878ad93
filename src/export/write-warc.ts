import type { ArchivedPage, ArchiveReader } from '../storage/archive-reader.js';
import { requestHead, responseHead } from './http-blocks.js';
import { sha1Digest } from './warc-digest.js';
import type { AppendFile } from './append-file.js';
import { newRecordId, warcDate, warcFields, warcRecord, type WarcField } from './warc-record.js';
import { warcinfoRecord, type WarcinfoOptions } from './warcinfo.js';

// The archive as a WARC: warcinfo first, then for each stored response in URL
// order a response (or a revisit, for a body already written) and its request,
// and a metadata record with an HTML page's outlinks; optionally the URLs that
// failed before any response, as metadata records with their error.

export const REVISIT_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export interface WarcOptions extends WarcinfoOptions {
  includeFailed: boolean;
  /** Stops the export between two URLs. */
  signal?: AbortSignal;
}

/** A response or revisit record written: what a CDXJ line says of it. */
export interface WrittenCapture {
  type: 'response' | 'revisit';
  url: string;
  /** WARC-Date. */
  date: string;
  /** The media type without parameters, when known. */
  mime: string | undefined;
  status: number;
  /** WARC-Payload-Digest. */
  digest: string;
  offset: number;
  length: number;
}

export interface WarcEvents {
  capture?(capture: WrittenCapture): void | Promise<void>;
  /** An HTML page that is not a redirect: a page a replay can open (pages.jsonl). */
  page?(page: { url: string; date: string; title: string | null }): void | Promise<void>;
  /** After each URL's records: bytes written so far. */
  progress?(bytes: number, responses: number): void;
}

export interface WarcSummary {
  responses: number;
  revisits: number;
  failed: number;
  bytes: number;
}

const mimeOf = (contentType: string | null): string | undefined => contentType?.split(';', 1)[0]!.trim().toLowerCase() || undefined;

/** Writes every record; the caller holds one read snapshot around it. */
export async function writeWarc(archive: ArchiveReader, file: AppendFile, options: WarcOptions, events: WarcEvents = {}): Promise<WarcSummary> {
  const crawl = archive.crawlDefinition();
  const userAgent = typeof crawl?.options.userAgent === 'string' ? crawl.options.userAgent : undefined;
  await file.write(warcinfoRecord(archive, crawl, options));

  // Only bodies stored more than once need remembering: memory grows with duplicates, not with the archive.
  const shared = archive.sharedBodies();
  const firstWritten = new Map<string, { url: string; date: string; id: string }>();
  const summary: WarcSummary = { responses: 0, revisits: 0, failed: 0, bytes: 0 };

  for (const page of archive.pages(undefined, { outlinks: true })) {
    options.signal?.throwIfAborted();
    const date = warcDate(page.fetchedAt);
    const digest = page.sha1 ?? sha1Digest(page.body);
    const responseId = newRecordId();
    const requestId = newRecordId();
    const head = responseHead(page);
    const common: WarcField[] = [
      ['WARC-Date', date],
      ['WARC-Target-URI', page.fetchUrl],
      ['WARC-IP-Address', page.remoteIp ?? undefined],
    ];
    const marked: WarcField = ['Crawlite-Headers', head.rebuilt ? 'rebuilt' : undefined];
    const original = page.body.length > 0 && shared.has(page.sha256) ? firstWritten.get(page.sha256) : undefined;
    let written: { offset: number; length: number };
    if (original) {
      written = await file.write(
        warcRecord(
          'revisit',
          [
            ['WARC-Record-ID', responseId],
            ...common,
            ['WARC-Concurrent-To', requestId],
            ['WARC-Profile', REVISIT_PROFILE],
            ['WARC-Refers-To', original.id],
            ['WARC-Refers-To-Target-URI', original.url],
            ['WARC-Refers-To-Date', original.date],
            ['WARC-Payload-Digest', digest],
            ['Content-Type', 'application/http; msgtype=response'],
            marked,
          ],
          [head.bytes],
        ),
      );
      summary.revisits += 1;
    } else {
      written = await file.write(
        warcRecord(
          'response',
          [
            ['WARC-Record-ID', responseId],
            ...common,
            ['WARC-Concurrent-To', requestId],
            ['WARC-Payload-Digest', digest],
            ['Content-Type', 'application/http; msgtype=response'],
            marked,
          ],
          [head.bytes, page.body],
        ),
      );
      if (page.body.length > 0 && shared.has(page.sha256)) firstWritten.set(page.sha256, { url: page.fetchUrl, date, id: responseId });
    }
    summary.responses += 1;
    await events.capture?.({
      type: original ? 'revisit' : 'response',
      url: page.fetchUrl,
      date,
      mime: mimeOf(page.contentType),
      status: page.status,
      digest,
      ...written,
    });

    const request = requestHead(page, userAgent);
    await file.write(
      warcRecord(
        'request',
        [
          ['WARC-Record-ID', requestId],
          ...common,
          ['WARC-Concurrent-To', responseId],
          ['Content-Type', 'application/http; msgtype=request'],
          ['Crawlite-Headers', request.rebuilt ? 'rebuilt' : undefined],
        ],
        [request.bytes],
      ),
    );

    if (isHtml(page)) {
      await file.write(outlinksRecord(page, date, responseId));
      if (page.status < 300 || page.status >= 400) await events.page?.({ url: page.fetchUrl, date, title: page.title });
    }
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
      await file.write(
        warcRecord(
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
  summary.bytes = file.offset;
  return summary;
}

const isHtml = (page: ArchivedPage): boolean => HTML_TYPES.has(mimeOf(page.contentType) ?? '');

/** Heritrix's form: one `outlink: URL kind` line per link found on the page. */
function outlinksRecord(page: ArchivedPage, date: string, responseId: string): Buffer {
  const block = warcFields((page.outlinks ?? []).map((link) => ['outlink', `${link.url} ${link.kind}`]));
  return warcRecord(
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
