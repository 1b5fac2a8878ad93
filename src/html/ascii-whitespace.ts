/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
export function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}
