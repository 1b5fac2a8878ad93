import { isHighSurrogate } from './cut-cell.js';

// A query's rows as a CSV or JSON document, made in the query's own process piece by piece: a cell
// of hundreds of megabytes becomes pieces of at most PIECE_CHARS characters (its base64 or its
// escaped text), so neither this process nor the one it streams to holds a second copy of it whole.

export type RowsFormat = 'csv' | 'json';

/** Characters of one piece of a large cell. */
export const PIECE_CHARS = 64 * 1024;
/** Bytes of a BLOB per base64 piece: a multiple of 3, so the pieces join into one base64 text. */
const BLOB_PIECE = (PIECE_CHARS / 4) * 3;

/** `text` in slices of at most PIECE_CHARS characters, never splitting a surrogate pair. */
function* slices(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + PIECE_CHARS, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    yield text.slice(at, end);
    at = end;
  }
}

function* base64(value: Uint8Array): Generator<string> {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  for (let at = 0; at < bytes.length; at += BLOB_PIECE) yield bytes.subarray(at, at + BLOB_PIECE).toString('base64');
}

/** A CSV field: quoted when it holds a quote, a comma or a line break (RFC 4180). */
function* csvCell(value: unknown): Generator<string> {
  if (value === null || value === undefined) return;
  if (value instanceof Uint8Array) return yield* base64(value);
  const text = String(value);
  if (!/[",\r\n]/.test(text)) return yield* slices(text);
  yield '"';
  for (const slice of slices(text)) yield slice.replaceAll('"', '""');
  yield '"';
}

/** A JSON value: a BLOB as base64, an integer past 2^53 as a string. */
function* jsonCell(value: unknown): Generator<string> {
  if (value instanceof Uint8Array) {
    yield '"';
    yield* base64(value);
    return yield '"';
  }
  if (typeof value === 'string') {
    yield '"';
    for (const slice of slices(value)) yield JSON.stringify(slice).slice(1, -1);
    return yield '"';
  }
  if (typeof value === 'bigint')
    return yield Number.isSafeInteger(Number(value)) ? String(Number(value)) : JSON.stringify(value.toString());
  yield JSON.stringify(value ?? null) ?? 'null';
}

/**
 * The whole document, in pieces: CSV with a header line and CRLF line ends; JSON as an array of one
 * object per row. Its start comes with the first row (or at the end, when there is none), so a
 * query stopped before its first row has sent nothing yet.
 */
export function* encodeRows(format: RowsFormat, columns: readonly string[], rows: Iterable<unknown[]>): Generator<string> {
  const start = format === 'csv' ? `${columns.map((name) => [...csvCell(name)].join('')).join(',')}\r\n` : '[';
  const keys = columns.map((name) => `${JSON.stringify(name)}:`);
  let first = true;
  for (const row of rows) {
    if (first) yield start;
    if (format === 'csv') {
      for (let i = 0; i < row.length; i += 1) {
        if (i > 0) yield ',';
        yield* csvCell(row[i]);
      }
      yield '\r\n';
    } else {
      yield first ? '\n{' : ',\n{';
      for (let i = 0; i < keys.length; i += 1) {
        yield i > 0 ? `,${keys[i]}` : keys[i]!;
        yield* jsonCell(row[i]);
      }
      yield '}';
    }
    first = false;
  }
  if (first) yield start;
  if (format === 'json') yield '\n]\n';
}
