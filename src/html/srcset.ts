import { isAsciiWhitespace } from './ascii-whitespace.js';

const COMMA = 0x2c;

/**
 * The URLs of a `srcset`, per HTML's "parse a srcset attribute": a URL runs to whitespace and loses
 * trailing commas, so `a.jpg?x=1,2 1x` keeps its comma but `a.jpg, b.jpg` is two URLs; descriptors
 * run to the next comma outside parentheses. Each URL goes to `onUrl` with where it is in `srcset`,
 * so that replay can rewrite it in place; the crawl and replay read a srcset alike.
 */
export function parseSrcset(srcset: string, onUrl: (url: string, start: number, end: number) => void): void {
  const end = srcset.length;
  let i = 0;
  for (;;) {
    while (i < end && (isAsciiWhitespace(srcset.charCodeAt(i)) || srcset.charCodeAt(i) === COMMA)) i++;
    if (i >= end) return;
    const urlStart = i;
    while (i < end && !isAsciiWhitespace(srcset.charCodeAt(i))) i++;
    let urlEnd = i;
    if (srcset.charCodeAt(urlEnd - 1) === COMMA) {
      // "a.jpg," ends the candidate: there are no descriptors to read.
      while (urlEnd > urlStart && srcset.charCodeAt(urlEnd - 1) === COMMA) urlEnd--;
    } else {
      i = skipDescriptors(srcset, i);
    }
    if (urlEnd > urlStart) onUrl(srcset.slice(urlStart, urlEnd), urlStart, urlEnd);
  }
}

/** Skips descriptors from `at` to just past the next comma outside parentheses (or the end). */
function skipDescriptors(srcset: string, at: number): number {
  let inParens = false;
  for (let i = at; i < srcset.length; i++) {
    const c = srcset.charCodeAt(i);
    if (inParens) {
      if (c === 0x29) inParens = false;
    } else if (c === 0x28) {
      inParens = true;
    } else if (c === COMMA) {
      return i + 1;
    }
  }
  return srcset.length;
}
