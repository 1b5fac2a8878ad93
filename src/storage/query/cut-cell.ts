// A cell as a page shows it, cut in the query's own process: a statement can return a cell of
// hundreds of megabytes (`select randomblob(400000000)`), and whatever crosses to serve is copied
// twice on the way (serialised, then read back). Only the part a page shows crosses, with the size
// of the whole, so serve's memory does not grow with the cell.

/** A cell too large to show whole: the first characters of its text (none of a BLOB) and its whole size in bytes. */
export interface CutCell {
  readonly cut: 'text' | 'blob';
  readonly head: string;
  readonly bytes: number;
}

export function isCutCell(value: unknown): value is CutCell {
  return typeof value === 'object' && value !== null && 'cut' in value && 'bytes' in value;
}

/**
 * The cell as sent for display: text longer than `chars` cut to them (a surrogate pair kept whole),
 * any BLOB as its size alone (a page shows a BLOB by its size), anything else as is.
 */
export function cutCell(value: unknown, chars: number): unknown {
  if (value instanceof Uint8Array) return { cut: 'blob', head: '', bytes: value.byteLength } satisfies CutCell;
  if (typeof value !== 'string' || value.length <= chars) return value;
  const end = isHighSurrogate(value.charCodeAt(chars - 1)) ? chars - 1 : chars;
  return { cut: 'text', head: value.slice(0, end), bytes: Buffer.byteLength(value) } satisfies CutCell;
}

export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
