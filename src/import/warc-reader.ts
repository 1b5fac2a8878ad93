import { MAX_RESPONSE_HEAD_BYTES } from '../pipeline/crawl-limits.js';
import { WarcBytes } from './warc-bytes.js';
import type { WarcInput } from './warc-source.js';

/** One WARC record: its named fields (names lower-cased, first value kept) and its whole content block. */
export interface WarcRecord {
  /** Where the record starts in the file: the byte offset, or in a .warc.gz the offset of its gzip member. */
  offset: number;
  fields: Map<string, string>;
  type: string;
  content: Buffer;
  /** Set when the record was too large to hold: `content` is only its first bytes, of this many. */
  cutFrom?: number;
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
/** What is kept of a request record too large to hold: room for its request line, headers and blank line. */
const REQUEST_HEAD_BYTES = MAX_RESPONSE_HEAD_BYTES + 4;
/** Stray bytes (with their line end) after a record's content that still let it be read as its Content-Length says. */
const MAX_STRAY_LINE = 16;

// Lines end with CRLF, LF, or (from some writers, as warcio reads them) CRCRLF.
const VERSION_LINE = /^WARC\/\d+\.\d+\r{0,2}\n$/;
const isVersionLine = (line: Uint8Array) => line.byteLength < 16 && VERSION_LINE.test(Buffer.from(line).toString('latin1'));
const isBlank = (line: Uint8Array) =>
  line.byteLength <= 3 && line[line.byteLength - 1] === 10 && line.subarray(0, -1).every((byte) => byte === 13);

function shown(line: Uint8Array): string {
  const text = Buffer.from(line.subarray(0, 40))
    .toString('latin1')
    .replace(/\r?\n$/, '')
    .replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(text.trim() + (line.byteLength > 40 ? '...' : ''));
}

/** Reports a gzip member that does not inflate, by its own offset, and moves on to the next intact member. */
async function passDamaged(bytes: WarcBytes): Promise<WarcEntry> {
  const { offset, reason } = bytes.damaged!;
  const next = await bytes.skipDamaged();
  const after =
    next === 'none'
      ? 'no intact member follows it'
      : next === 'false starts'
        ? 'the rest of the file is not read: it holds too many gzip headers that start no member'
        : `skipped to the next intact member, at offset ${next}`;
  return { problem: { offset, message: `a gzip member that does not inflate (${reason}); ${after}` } };
}

/**
 * Reads the records of a WARC file, plain or gzipped (one member per record
 * or not), streaming: one record's content is held at a time. WarcBytes
 * undoes the gzip members and keeps their offsets; the framing is checked
 * here, because a record's Content-Length cannot be trusted (a record that
 * lies about it shifts every later one). A record that does not end where its
 * Content-Length says, and bytes between records that are no record, are
 * reported and passed over, and reading goes on at the next `WARC/1.x` line;
 * a gzip member that does not inflate is reported by its own offset and
 * reading goes on at the next member that does; a file cut short ends with a
 * problem at the record cut.
 */
export async function* readWarc(input: WarcInput, maxContentBytes: number): AsyncGenerator<WarcEntry> {
  const bytes = await WarcBytes.open(input);
  /** The version line of the next record, when it was met while checking the end of the previous one. */
  let pending: { line: Uint8Array; offset: number } | undefined;
  let sawRecord = false;
  try {
    for (;;) {
      // Whatever was being read when a member failed is lost with it; the member is reported once, here.
      if (bytes.damaged) {
        pending = undefined;
        yield await passDamaged(bytes);
      }
      let start: { line: Uint8Array; offset: number } | undefined = pending;
      pending = undefined;
      while (!start) {
        const offset = bytes.offset();
        const line = await bytes.readlineRaw(MAX_LINE);
        if (!line) break;
        if (isBlank(line)) continue;
        if (isVersionLine(line)) {
          start = { line, offset };
          break;
        }
        yield {
          problem: {
            offset,
            message: sawRecord
              ? `not a WARC record (it starts with ${shown(line)}); skipped to the next record`
              : `not a WARC file (it starts with ${shown(line)})`,
          },
        };
        if (!sawRecord) return;
        start = gluedStart(bytes, line, offset) ?? (await resync(bytes));
        if (!start) break;
      }
      if (!start) {
        if (bytes.damaged) continue;
        break;
      }
      sawRecord = true;
      const fields = await readFields(bytes);
      if ('problem' in fields) {
        if (bytes.damaged) continue;
        yield { problem: { offset: start.offset, message: fields.problem } };
        if (fields.end) return;
        pending = await resync(bytes);
        continue;
      }
      const type = fields.map.get('warc-type') ?? '';
      const lengthText = fields.map.get('content-length') ?? '';
      if (!/^\d{1,15}$/.test(lengthText)) {
        yield {
          problem: {
            offset: start.offset,
            message: `record without a valid Content-Length (${JSON.stringify(lengthText)}); skipped to the next record`,
          },
        };
        pending = await resync(bytes);
        continue;
      }
      const length = Number(lengthText);
      let content: Buffer | undefined;
      let cutFrom: number | undefined;
      if (length > maxContentBytes) {
        // A request's line and headers are small however large its body (a POST's upload): they are kept, so its
        // answer is still known for what it is. Any other record too large is passed over whole.
        const head = type === 'request' ? await bytes.readSize(Math.min(length, REQUEST_HEAD_BYTES)) : undefined;
        const kept = head?.byteLength ?? 0;
        const skipped = head && kept < Math.min(length, REQUEST_HEAD_BYTES) ? kept : kept + (await bytes.skipSize(length - kept));
        if (skipped < length) {
          if (bytes.damaged) continue;
          yield { problem: { offset: start.offset, message: truncated(bytes, length, skipped) } };
          return;
        }
        if (head) {
          content = head;
          cutFrom = length;
        } else {
          yield { skipped: { offset: start.offset, type, length } };
        }
      } else {
        content = await bytes.readSize(length);
        if (content.byteLength < length) {
          if (bytes.damaged) continue;
          yield { problem: { offset: start.offset, message: truncated(bytes, length, content.byteLength) } };
          return;
        }
      }
      // A record is followed by two CRLFs, then the next record or the end: anything else (but the next record at once)
      // means its Content-Length is wrong.
      const after = await recordEnd(bytes);
      if ('junk' in after && after.blanks === 0 && after.junk.byteLength <= MAX_STRAY_LINE) {
        // A few bytes left on the record's last line, then blank lines and the next record (or the end): its
        // Content-Length is short by those bytes. warcio reads the record as long as it says and goes on; so does this.
        const rest = await recordEnd(bytes);
        if (!('junk' in rest) && (rest.blanks >= 1 || !rest.next)) {
          if (bytes.lastBytesDamaged) continue;
          // What the stray bytes were is unknown (the block's end, or junk): the capture says it may be cut.
          if (!fields.map.has('warc-truncated')) fields.map.set('warc-truncated', 'length');
          if (content)
            yield { record: { offset: start.offset, fields: fields.map, type, content, ...(cutFrom !== undefined ? { cutFrom } : {}) } };
          yield {
            problem: {
              offset: start.offset,
              message: `the record's Content-Length (${length}) is ${strayBytes(after.junk)} bytes short of the blank line after it (${shown(after.junk)}); read as long as it says, as warcio does`,
            },
          };
          pending = rest.next;
          continue;
        }
        yield { problem: { offset: start.offset, message: notWhereSaid(length, after.junk) } };
        pending = ('junk' in rest ? gluedStart(bytes, rest.junk, rest.offset) : rest.next) ?? (await resync(bytes));
        continue;
      }
      if ('junk' in after && after.blanks < 2) {
        yield { problem: { offset: start.offset, message: notWhereSaid(length, after.junk) } };
        pending = after.next ?? (await resync(bytes));
        continue;
      }
      // The file failed to inflate right after the record's last bytes, in their own member: they cannot be trusted.
      if (bytes.lastBytesDamaged) continue;
      if (content)
        yield { record: { offset: start.offset, fields: fields.map, type, content, ...(cutFrom !== undefined ? { cutFrom } : {}) } };
      if ('junk' in after) {
        // The record ended as framed: what follows it is no record, and the records after it are still read.
        yield {
          problem: { offset: after.offset, message: `not a WARC record (it starts with ${shown(after.junk)}); skipped to the next record` },
        };
        pending = gluedStart(bytes, after.junk, after.offset) ?? (await resync(bytes));
        continue;
      }
      pending = after.next;
    }
    if (bytes.cutShort) yield { problem: { offset: bytes.offset(), message: 'the file ends inside a gzip member (a truncated .warc.gz)' } };
  } finally {
    await bytes.close();
  }
}

/** The bytes of a line without its line end. */
const strayBytes = (line: Uint8Array) =>
  Buffer.from(line)
    .toString('latin1')
    .replace(/\r*\n$/, '').length;

const notWhereSaid = (length: number, junk: Uint8Array) =>
  `the record does not end where its Content-Length (${length}) says (found ${shown(junk)}); skipped to the next record`;

function truncated(bytes: WarcBytes, length: number, got: number): string {
  const where = bytes.cutShort ? ' (the file ends inside a gzip member: a truncated .warc.gz)' : '';
  return `the file ends inside this record: ${got} of its ${length} content bytes${where}`;
}

async function readFields(reader: WarcBytes): Promise<{ map: Map<string, string> } | { problem: string; end?: boolean }> {
  const map = new Map<string, string>();
  let size = 0;
  let last: string | undefined;
  for (;;) {
    const raw = await reader.readlineRaw(MAX_LINE);
    if (!raw) return { problem: 'the file ends inside the record header', end: true };
    size += raw.byteLength;
    if (size > MAX_FIELDS_BYTES) return { problem: `record header longer than ${MAX_FIELDS_BYTES} bytes` };
    const line = Buffer.from(raw)
      .toString('utf8')
      .replace(/\r{0,2}\n$/, '');
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

type Start = { line: Uint8Array; offset: number };

/** Reads the blank lines after a record: the next record's version line, the end, or junk (and how many blank lines came first). */
async function recordEnd(
  bytes: WarcBytes,
): Promise<{ blanks: number; next?: Start } | { blanks: number; junk: Uint8Array; offset: number; next?: Start }> {
  let blanks = 0;
  for (;;) {
    const offset = bytes.offset();
    const line = await bytes.readlineRaw(MAX_LINE);
    if (!line) return { blanks };
    if (isBlank(line)) {
      blanks++;
      continue;
    }
    // No blank line before the next record: its Content-Length counted them (some writers' warcinfo). warcio reads
    // on, and so does this: the record ended where it said, on a line that starts the next one.
    if (isVersionLine(line)) return { blanks, next: { line, offset } };
    return { blanks, junk: line, offset };
  }
}

/** A version line at the end of a line of junk: bytes with no line break of their own before a record. */
const GLUED_VERSION = /WARC\/1\.[01]\r{0,2}\n$/;

/** The record start at the end of a junk line, if there is one. */
function gluedStart(bytes: WarcBytes, line: Uint8Array, offset: number): Start | undefined {
  const glued = GLUED_VERSION.exec(Buffer.from(line.subarray(-12)).toString('latin1'));
  if (!glued) return undefined;
  const at = line.byteLength - glued[0].length;
  return { line: line.subarray(at), offset: bytes.gzip ? offset : offset + at };
}

/** Reads on to the next line that starts a record, or that ends with a version line after junk. */
async function resync(bytes: WarcBytes): Promise<Start | undefined> {
  for (;;) {
    const offset = bytes.offset();
    const line = await bytes.readlineRaw(MAX_LINE);
    if (!line) return undefined;
    if (isVersionLine(line)) return { line, offset };
    const glued = gluedStart(bytes, line, offset);
    if (glued) return glued;
  }
}
