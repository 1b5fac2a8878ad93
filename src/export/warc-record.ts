import { randomUUID } from 'node:crypto';
import { sha1Digest } from './warc-digest.js';

export type WarcType = 'warcinfo' | 'request' | 'response' | 'revisit' | 'metadata' | 'resource';

/** A WARC header field; a value of undefined leaves the field out. */
export type WarcField = [name: string, value: string | undefined];

export const newRecordId = (): string => `<urn:uuid:${randomUUID()}>`;

const CRLF = '\r\n';

/**
 * One WARC/1.1 record, uncompressed: the version line, WARC-Type, the given
 * fields, WARC-Block-Digest and Content-Length, a blank line, the block, and
 * the two CRLFs that end a record.
 */
export function warcRecordBytes(type: WarcType, fields: WarcField[], block: Buffer[]): Buffer {
  const length = block.reduce((sum, part) => sum + part.length, 0);
  const lines = [`WARC/1.1`, `WARC-Type: ${type}`];
  for (const [name, value] of fields) if (value !== undefined) lines.push(`${name}: ${value}`);
  lines.push(`WARC-Block-Digest: ${sha1Digest(...block)}`, `Content-Length: ${length}`);
  // WARC header values are UTF-8 (WARC 1.1 section 4); target URIs are ASCII already.
  const head = Buffer.from(lines.join(CRLF) + CRLF + CRLF, 'utf8');
  return Buffer.concat([head, ...block, Buffer.from(CRLF + CRLF)]);
}

/** A WARC-Date: ISO 8601 UTC, with the fraction of a second WARC 1.1 allows (ms from a crawl, as read from an imported WARC). */
export const warcDate = (iso: string): string => (STORED_DATE.test(iso) ? iso : new Date(iso).toISOString());

/** A time as the archive stores it: an imported WARC's fraction of a second is kept, up to 9 digits. */
const STORED_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,9}Z$/;

/** application/warc-fields: 'name: value' lines; a value's line breaks would start a new field, so they become spaces. */
export function warcFields(fields: Array<[string, string | undefined]>): Buffer {
  const lines = fields
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${value!.replace(/[\r\n]+/g, ' ')}${CRLF}`);
  return Buffer.from(lines.join(''), 'utf8');
}
