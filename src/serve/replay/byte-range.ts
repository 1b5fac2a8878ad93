/** What a `Range` header asks of a body of `size` bytes (RFC 9110 §14). */
export type ByteRange =
  /** No range, or one replay does not serve (several ranges, another unit, bad syntax): send it all. */
  | { kind: 'whole' }
  /** Bytes `start` to `end`, both included. */
  | { kind: 'part'; start: number; end: number }
  /** No byte of the range exists: 416. */
  | { kind: 'unsatisfiable' };

/**
 * One `bytes=` range: `a-b`, `a-` or `-n` (the last n bytes). A range past the end is cut at the
 * end; one starting past the end is unsatisfiable. Several ranges are answered with the whole body,
 * which RFC 9110 allows and media players do not ask for.
 */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (last !== '' && end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}
