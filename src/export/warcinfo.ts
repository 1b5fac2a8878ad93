import type { ArchivedCrawl, ArchiveReader } from '../storage/reader/index.js';
import { newRecordId, warcFields, warcRecordBytes } from './warc-record.js';

export interface WarcinfoOptions {
  /** The WARC's file name, as the warcinfo and the CDXJ name it. */
  filename: string;
  /** 'crawlite/<version>'. */
  software: string;
  operator?: string;
  description?: string;
}

/**
 * The first record, uncompressed: who wrote the WARC, from which crawl, and how its records differ from the wire.
 * An archive of several crawls (re-crawls) names each (`crawlite-crawl`, JSON), and its response and revisit
 * records say which they are of (`Crawlite-Crawl`), so an import keeps the crawls `diff` compares.
 */
export function warcinfoRecord(
  archive: ArchiveReader,
  crawl: { roots: string[]; options: Record<string, unknown> } | undefined,
  options: WarcinfoOptions,
  crawls: ArchivedCrawl[] = [],
): Buffer {
  const wire = archive.wireRecorded();
  const rebuilt = wire.responses - wire.rawHeaders;
  const options_ = crawl?.options ?? {};
  const block = warcFields([
    ['software', options.software],
    ['format', 'WARC File Format 1.1'],
    ['conformsTo', 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
    ['operator', options.operator],
    ['description', options.description],
    ['robots', options_.robots === false ? 'ignore' : 'obey'],
    ['http-header-user-agent', typeof options_.userAgent === 'string' ? options_.userAgent : undefined],
    ['crawlite-roots', crawl?.roots.join(' ')],
    ['crawlite-options', crawl ? JSON.stringify(crawl.options) : undefined],
    ...crawls.map((one): [string, string] => ['crawlite-crawl', JSON.stringify(one)]),
    [
      'crawlite-payload',
      'the body as stored, Content-Encoding undone; in the HTTP header block Content-Encoding and Transfer-Encoding are renamed in place, X-Crawlite-Original- before their names as received, and Content-Length is the payload length, followed by X-Crawlite-Original-Content-Length with the one received when it differed (none when there was none)',
    ],
    [
      'crawlite-http-headers',
      rebuilt === 0
        ? `as received for all ${wire.responses} responses`
        : `as received for ${wire.rawHeaders} of ${wire.responses} responses; rebuilt for ${rebuilt} from the archive's JSON headers (lower-case names, order not kept, reason phrase guessed), their records marked Crawlite-Headers: rebuilt`,
    ],
  ]);
  return warcRecordBytes(
    'warcinfo',
    [
      ['WARC-Record-ID', newRecordId()],
      ['WARC-Date', new Date().toISOString()],
      ['WARC-Filename', options.filename],
      ['Content-Type', 'application/warc-fields'],
    ],
    [block],
  );
}
