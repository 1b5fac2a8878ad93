/**
 * Concatenates ASCII (or latin1, one byte per char) text and raw bytes: markup
 * around hand-encoded bytes, so no encoder of ours is trusted to build the input.
 */
export function bytes(...parts: Array<string | number[]>): Buffer {
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
}
