import { createTwoFilesPatch } from 'diff';
import { captureText } from '../../html/index.js';
import { normalizeUrl } from '../../url/index.js';
import { bodyBytes } from '../archive/body-bytes.js';
import type { ArchiveReader } from '../reader/archive-reader.js';

// How one URL's text changed between two crawls, as serve's changes page shows it, bounded in
// what it reads: a capture's first `bodyBytes` bytes (SQLite cuts the body: the rest never reaches
// JavaScript), the first `textChars` characters of each side's text, and the time the comparison
// itself may take. It runs in the query's process (startDiff), which a deadline kills: parsing a
// page of tens of megabytes takes seconds that serve's own thread must never spend.

export interface DiffAsked {
  /** The URL as asked; its normalized spelling is tried too. */
  url: string;
  from: number;
  to: number;
}

export interface DiffLimits {
  bodyBytes: number;
  textChars: number;
  /** The comparison's own limit (jsdiff's timeout), within the process's deadline. */
  compareMs: number;
}

/** One side: when and how it was captured, its whole size, and whether only part of it was read or compared. */
export interface DiffSide {
  crawl: number;
  fetchedAt: string;
  status: number;
  revalidated: boolean;
  bytes: number;
  bodyCut: boolean;
  textCut: boolean;
}

export type CapturesDiff =
  | { kind: 'not-archived' }
  | { kind: 'not-captured'; url: string; crawl: number }
  | { kind: 'same'; url: string; sides: [DiffSide, DiffSide]; bodiesDiffer: boolean }
  /** `patch` undefined: the texts were too different to compare within `compareMs`. */
  | { kind: 'patch'; url: string; sides: [DiffSide, DiffSide]; patch: string | undefined };

const CAPTURE_SQL = `SELECT crawl, fetched_at, status, revalidated, content_type, charset, size, sha256, CASE WHEN length(body) < size THEN body ELSE substr(body, 1, ?) END AS head, length(body) < size AS packed
  FROM captures WHERE url = ? AND crawl = ? ORDER BY fetched_at DESC LIMIT 1`;

function firstRow(archive: ArchiveReader, sql: string, params: unknown[]): unknown[] | undefined {
  for (const row of archive.query(sql, params).rows) return row;
  return undefined;
}

export function diffCaptures(archive: ArchiveReader, asked: DiffAsked, limits: DiffLimits): CapturesDiff {
  const normalized = normalizeUrl(asked.url);
  const keys = [asked.url, 'error' in normalized ? undefined : normalized.key];
  const url = keys.find(
    (key): key is string => key !== undefined && firstRow(archive, 'SELECT 1 FROM pages WHERE url = ?', [key]) !== undefined,
  );
  if (url === undefined) return { kind: 'not-archived' };
  const read = [asked.from, asked.to].map((crawl) => firstRow(archive, CAPTURE_SQL, [limits.bodyBytes, url, crawl]));
  const missing = [asked.from, asked.to].find((_, i) => !read[i]);
  if (missing !== undefined) return { kind: 'not-captured', url, crawl: missing };
  const sides = read.map((row) => {
    const [crawl, fetchedAt, status, revalidated, contentType, charset, size, sha256, head, packed] = row as [
      number,
      string,
      number,
      number,
      string | null,
      string | null,
      number,
      string,
      Uint8Array | null,
      number,
    ];
    const stored = head ? Buffer.from(head.buffer, head.byteOffset, head.byteLength) : Buffer.alloc(0);
    // A compressed body is read whole (a zlib stream cannot be cut in SQL), then cut as a raw one is.
    const body = packed === 1 ? bodyBytes(stored, size).subarray(0, limits.bodyBytes) : stored;
    const text = captureText({ content_type: contentType, charset, body });
    const side: DiffSide = {
      crawl,
      fetchedAt,
      status,
      revalidated: revalidated === 1,
      bytes: size,
      bodyCut: body.length < size,
      textCut: text.length > limits.textChars,
    };
    return { side, sha256, text: text.slice(0, limits.textChars) };
  }) as [{ side: DiffSide; sha256: string; text: string }, { side: DiffSide; sha256: string; text: string }];
  const [before, after] = sides;
  const both: [DiffSide, DiffSide] = [before.side, after.side];
  if (before.text === after.text) return { kind: 'same', url, sides: both, bodiesDiffer: before.sha256 !== after.sha256 };
  const label = (side: DiffSide) =>
    `crawl ${side.crawl}, ${side.fetchedAt}, status ${side.status}${side.revalidated ? ' (304 not modified)' : ''}`;
  const patch = createTwoFilesPatch(url, url, before.text, after.text, label(before.side), label(after.side), {
    timeout: limits.compareMs,
  });
  return { kind: 'patch', url, sides: both, patch };
}
