import { isAsciiWhitespace } from './ascii-whitespace.js';

const COMMA = 0x2c;

/**
 * The URL of a `<meta http-equiv="refresh">` content, per HTML's "shared declarative refresh steps":
 * a delay, then `;` or `,` or whitespace, then optionally `url=`, then the URL, optionally quoted.
 * Undefined when there is no URL (a plain reload) or the content is not a refresh at all.
 */
export function parseRefresh(content: string): string | undefined {
  const url = findRefreshUrl(content);
  return url && content.slice(url.start, url.end);
}

/** Where the URL of a refresh content is (see `parseRefresh`), so that replay can rewrite it in place. */
export function findRefreshUrl(content: string): { start: number; end: number } | undefined {
  const end = content.length;
  let i = 0;
  const skipSpace = () => {
    while (i < end && isAsciiWhitespace(content.charCodeAt(i))) i++;
  };
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  skipSpace();
  const digitsStart = i;
  while (i < end && isDigit(content.charCodeAt(i))) i++;
  if (i === digitsStart && content.charCodeAt(i) !== 0x2e) return undefined;
  while (i < end && (isDigit(content.charCodeAt(i)) || content.charCodeAt(i) === 0x2e)) i++;
  if (i >= end) return undefined;
  const separator = content.charCodeAt(i);
  if (separator !== 0x3b && separator !== COMMA && !isAsciiWhitespace(separator)) return undefined;
  skipSpace();
  if (content.charCodeAt(i) === 0x3b || content.charCodeAt(i) === COMMA) {
    i++;
    skipSpace();
  }
  if (i >= end) return undefined;
  const urlStart = i;
  // "url=" is optional; "urlfoo" without "=" is part of the URL itself.
  if (
    (content.charCodeAt(i) | 0x20) === 0x75 &&
    (content.charCodeAt(i + 1) | 0x20) === 0x72 &&
    (content.charCodeAt(i + 2) | 0x20) === 0x6c
  ) {
    i += 3;
    skipSpace();
    if (content.charCodeAt(i) === 0x3d) {
      i++;
      skipSpace();
    } else {
      i = urlStart;
    }
  }
  const quote = content.charCodeAt(i);
  if (quote === 0x22 || quote === 0x27) {
    i++;
    const close = content.indexOf(String.fromCharCode(quote), i);
    return { start: i, end: close === -1 ? end : close };
  }
  return { start: i, end };
}
