import { createReadStream } from 'node:fs';
import { AsyncIterReader } from 'warcio';

/** One WARC record: its named fields (names lower-cased, first value kept) and its whole content block. */
export interface WarcRecord {
  /** Where the record starts in the file: the byte offset, or in a .warc.gz the offset of its gzip member. */
  offset: number;
  fields: Map<string, string>;
  type: string;
  content: Buffer;
}

/** A stretch of a file that could not be read as WARC records, and why. */
export interface WarcProblem {
  offset: number;
  message: string;
}

/** A record too large to hold, passed over without reading its content. */
export interface WarcSkip {
  offset: number;
  type: string;
  length: number;
}

export type WarcEntry = { record: WarcRecord } | { problem: WarcProblem } | { skipped: WarcSkip };

/** Longest WARC header line read; longer is no WARC. */
const MAX_LINE = 64 * 1024;
/** Largest WARC header block. */
const MAX_FIELDS_BYTES = 1024 * 1024;

const VERSION_LINE = /^WARC\/\d+\.\d+\r?\n$/;
const isVersionLine = (line: Uint8Array) => line.byteLength < 16 && VERSION_LINE.test(Buffer.from(line).toString('latin1'));
const isBlank = (line: Uint8Array) => (line.byteLength === 2 && line[0] === 13 && line[1] === 10) || (line.byteLength === 1 && line[0] === 10);

function shown(line: Uint8Array): string {
  const text = Buffer.from(line.subarray(0, 40)).toString('latin1').replace(/\r?\n$/, '').replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(text.trim() + (line.byteLength > 40 ? '...' : ''));
}

/**
 * Reads the records of a WARC file, plain or gzipped (one member per record
 * or not), streaming: one record's content is held at a time. warcio's
 * reader undoes the gzip members and keeps their offsets; the framing is
 * checked here, because warcio's parser trusts Content-Length (a record
 * that lies about it shifts every later one, and a truncated one makes its
 * skip loop forever). A record that does not end where its Content-Length
 * says is reported and passed over, and reading goes on at the next
 * `WARC/1.x` line; a file cut short ends with a problem at the record cut.
 */
export async function* readWarc(path: string, maxContentBytes: number): AsyncGenerator<WarcEntry> {
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  const reader = new AsyncIterReader(stream, 'gzip');
  let offset = 0;
  /** The version line of the next record, when it was met while checking the end of the previous one. */
  let pending: { line: Uint8Array; offset: number } | undefined;
  let sawRecord = false;
  try {
    for (;;) {
      let start: { line: Uint8Array; offset: number } | undefined = pending;
      pending = undefined;
      while (!start) {
        offset = reader.getRawOffset();
        const line = await reader.readlineRaw(MAX_LINE);
        if (!line) break;
        if (isBlank(line)) continue;
        if (isVersionLine(line)) {
          start = { line, offset };
          break;
        }
        yield { problem: { offset, message: sawRecord ? `not a WARC record (it starts with ${shown(line)}); skipped to the next record` : `not a WARC file (it starts with ${shown(line)})` } };
        if (!sawRecord) return;
        start = await resync(reader);
        if (!start) break;
      }
      if (!start) break;
      sawRecord = true;
      const fields = await readFields(reader);
      if ('problem' in fields) {
        yield { problem: { offset: start.offset, message: fields.problem } };
        if (fields.end) break;
        pending = await resync(reader);
        if (!pending) break;
        continue;
      }
      const type = fields.map.get('warc-type') ?? '';
      const lengthText = fields.map.get('content-length') ?? '';
      if (!/^\d{1,15}$/.test(lengthText)) {
        yield { problem: { offset: start.offset, message: `record without a valid Content-Length (${JSON.stringify(lengthText)}); skipped to the next record` } };
        pending = await resync(reader);
        if (!pending) break;
        continue;
      }
      const length = Number(lengthText);
      let content: Buffer | undefined;
      if (length > maxContentBytes) {
        const skipped = await reader.skipSize(length);
        if (skipped < length) {
          yield { problem: { offset: start.offset, message: truncated(reader, length, skipped) } };
          break;
        }
        yield { skipped: { offset: start.offset, type, length } };
      } else {
        content = Buffer.from(await reader.readSize(length));
        if (content.byteLength < length) {
          yield { problem: { offset: start.offset, message: truncated(reader, length, content.byteLength) } };
          break;
        }
      }
      // A record is followed by two CRLFs, then the next record or the end: anything else means its Content-Length is wrong.
      const after = await recordEnd(reader);
      if ('junk' in after) {
        yield { problem: { offset: start.offset, message: `the record does not end where its Content-Length (${length}) says (found ${shown(after.junk)}); skipped to the next record` } };
        pending = after.next ?? (await resync(reader));
        if (!pending) break;
        continue;
      }
      pending = after.next;
      if (content) yield { record: { offset: start.offset, fields: fields.map, type, content } };
    }
    if (gzipCutShort(reader)) yield { problem: { offset: reader.getRawOffset(), message: 'the file ends inside a gzip member (a truncated .warc.gz)' } };
  } finally {
    stream.destroy();
  }
}

function truncated(reader: AsyncIterReader, length: number, got: number): string {
  const where = gzipCutShort(reader) ? ' (the file ends inside a gzip member: a truncated .warc.gz)' : '';
  return `the file ends inside this record: ${got} of its ${length} content bytes${where}`;
}

/** A gzip member was started and never finished: the file was cut off. */
function gzipCutShort(reader: AsyncIterReader): boolean {
  const inflator = reader.inflator;
  return reader.compressed !== null && inflator !== null && reader.lastValue !== null && !inflator.ended;
}

async function readFields(reader: AsyncIterReader): Promise<{ map: Map<string, string> } | { problem: string; end?: boolean }> {
  const map = new Map<string, string>();
  let size = 0;
  let last: string | undefined;
  for (;;) {
    const raw = await reader.readlineRaw(MAX_LINE);
    if (!raw) return { problem: 'the file ends inside the record header', end: true };
    size += raw.byteLength;
    if (size > MAX_FIELDS_BYTES) return { problem: `record header longer than ${MAX_FIELDS_BYTES} bytes` };
    const line = Buffer.from(raw).toString('utf8').replace(/\r?\n$/, '');
    if (line === '') return { map };
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      map.set(last, `${map.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) return { problem: `malformed record header line ${shown(raw)}` };
    last = line.slice(0, colon).trim().toLowerCase();
    if (!map.has(last)) map.set(last, line.slice(colon + 1).trim());
  }
}

/** Reads the blank lines after a record's content: the next record's version line, the end, or junk. */
async function recordEnd(reader: AsyncIterReader): Promise<{ next?: { line: Uint8Array; offset: number } } | { junk: Uint8Array; next?: { line: Uint8Array; offset: number } }> {
  let blanks = 0;
  for (;;) {
    const offset = reader.getRawOffset();
    const line = await reader.readlineRaw(MAX_LINE);
    if (!line) return {};
    if (isBlank(line)) {
      blanks++;
      continue;
    }
    if (isVersionLine(line)) return blanks >= 1 ? { next: { line, offset } } : { junk: line, next: { line, offset } };
    return { junk: line };
  }
}

/** Reads on to the next line that starts a record. */
async function resync(reader: AsyncIterReader): Promise<{ line: Uint8Array; offset: number } | undefined> {
  for (;;) {
    const offset = reader.getRawOffset();
    const line = await reader.readlineRaw(MAX_LINE);
    if (!line) return undefined;
    if (isVersionLine(line)) return { line, offset };
  }
}
