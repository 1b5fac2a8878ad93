/**
 * Hands `onUrl` each URL a piece of CSS refers to: every `url(...)` and every `@import "..."`, in
 * source order, as written (CSS escapes decoded, not resolved), as it is found, so a stylesheet of
 * 300,000 `url()`s builds no array. `data:` and other schemes are passed on; the caller decides
 * what to fetch. `start` and `end` delimit the URL's token in `css` (a string with its quotes, or
 * an unquoted URL), so a caller can replace it in place.
 *
 * One forward scan, each character looked at a bounded number of times: CSS comes from the
 * sites we crawl, so no backtracking regular expression may see it.
 */
export function extractCssUrls(css: string, onUrl: (url: string, start: number, end: number) => void): void {
  const end = css.length;
  let i = 0;
  while (i < end) {
    const c = css.charCodeAt(i);
    if (c === SLASH && css.charCodeAt(i + 1) === STAR) {
      i = skipComment(css, i);
    } else if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      // A string is never a URL here (`content: "url(x)"`), so step over it whole.
      i = readString(css, i).next;
    } else if (c === BACKSLASH) {
      // An escaped character cannot start a comment, string or `url(`.
      i += 2;
    } else if ((c | 0x20) === LOWER_U && matchesAt(css, i, 'url(') && !isNameChar(css.charCodeAt(i - 1))) {
      const token = readUrlFunction(css, i + 4);
      if (token.url) onUrl(token.url, token.start, token.end);
      i = token.next;
    } else if (c === AT && matchesAt(css, i + 1, 'import') && !isNameChar(css.charCodeAt(i + 7))) {
      i = skipWhitespaceAndComments(css, i + 7);
      const q = css.charCodeAt(i);
      if (q === DOUBLE_QUOTE || q === SINGLE_QUOTE) {
        const token = readString(css, i);
        if (token.closed && token.value) onUrl(token.value, i, token.next);
        i = token.next;
      }
      // Otherwise `@import url(...)`: the loop meets the `url(` next and counts it once.
    } else {
      i++;
    }
  }
}

const AT = 0x40;
const BACKSLASH = 0x5c;
const CLOSE_PAREN = 0x29;
const DOUBLE_QUOTE = 0x22;
const LOWER_U = 0x75;
const OPEN_PAREN = 0x28;
const SINGLE_QUOTE = 0x27;
const SLASH = 0x2f;
const STAR = 0x2a;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0c || c === 0x0d;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** CSS identifier characters; `myurl(` is a different function from `url(`. NaN (before the start) is not one. */
function isNameChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x2d || c === 0x5f || c >= 0x80;
}

/** ASCII case-insensitive match of a lower-case `word` at `at`. */
function matchesAt(css: string, at: number, word: string): boolean {
  if (at + word.length > css.length) return false;
  for (let k = 0; k < word.length; k++) {
    const c = css.charCodeAt(at + k);
    const lowered = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    if (lowered !== word.charCodeAt(k)) return false;
  }
  return true;
}

/** `at` is on the `/` of `/*`; returns the index after the closing `*\/` (or the end: comments may run off it). */
function skipComment(css: string, at: number): number {
  const close = css.indexOf('*/', at + 2);
  return close === -1 ? css.length : close + 2;
}

function skipWhitespace(css: string, at: number): number {
  while (at < css.length && isWhitespace(css.charCodeAt(at))) at++;
  return at;
}

function skipWhitespaceAndComments(css: string, at: number): number {
  for (;;) {
    at = skipWhitespace(css, at);
    if (css.charCodeAt(at) === SLASH && css.charCodeAt(at + 1) === STAR) at = skipComment(css, at);
    else return at;
  }
}

/**
 * Decodes the escape whose backslash is just before `at` (CSS Syntax 4.3.7): up to six hex digits
 * and one optional whitespace, or the next character itself (so `\"` and `\)` are plain quotes and parens).
 */
function readEscape(css: string, at: number): { char: string; next: number } {
  if (at >= css.length) return { char: '\uFFFD', next: at };
  if (isHexDigit(css.charCodeAt(at))) {
    let stop = at;
    while (stop < css.length && stop - at < 6 && isHexDigit(css.charCodeAt(stop))) stop++;
    const cp = Number.parseInt(css.slice(at, stop), 16);
    if (css.charCodeAt(stop) === 0x0d && css.charCodeAt(stop + 1) === 0x0a) stop += 2;
    else if (isWhitespace(css.charCodeAt(stop))) stop++;
    const valid = cp !== 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    return { char: valid ? String.fromCodePoint(cp) : '\uFFFD', next: stop };
  }
  const cp = css.codePointAt(at) as number;
  return { char: String.fromCodePoint(cp), next: at + (cp > 0xffff ? 2 : 1) };
}

/**
 * Reads a quoted string whose quote is at `at`. `closed` is false when an unescaped newline cut it
 * short (a bad string in CSS, never a URL); running off the end still counts as closed, as in CSS.
 */
function readString(css: string, at: number): { value: string; closed: boolean; next: number } {
  const quote = css.charCodeAt(at);
  let value = '';
  let runStart = at + 1;
  let i = at + 1;
  while (i < css.length) {
    const c = css.charCodeAt(i);
    if (c === quote) return { value: value + css.slice(runStart, i), closed: true, next: i + 1 };
    if (isNewline(c)) return { value: '', closed: false, next: i };
    if (c === BACKSLASH) {
      value += css.slice(runStart, i);
      const after = css.charCodeAt(i + 1);
      if (isNewline(after)) {
        // A backslash before a newline continues the string onto the next line.
        i += after === 0x0d && css.charCodeAt(i + 2) === 0x0a ? 3 : 2;
      } else if (i + 1 >= css.length) {
        i += 1;
      } else {
        const escape = readEscape(css, i + 1);
        value += escape.char;
        i = escape.next;
      }
      runStart = i;
      continue;
    }
    i++;
  }
  return { value: value + css.slice(runStart), closed: true, next: css.length };
}

/**
 * Reads what follows `url(` at `at`: a quoted string, or an unquoted URL up to `)` (CSS Syntax 4.3.6).
 * An unquoted URL with inner whitespace, a quote or `(` is a bad URL: skipped up to its `)`.
 */
function readUrlFunction(css: string, at: number): { url?: string; start: number; end: number; next: number } {
  let i = skipWhitespace(css, at);
  const start = i;
  const first = css.charCodeAt(i);
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
    const token = readString(css, i);
    // The main loop steps over the `)` (or whatever junk precedes it) by itself.
    return token.closed ? { url: token.value, start, end: token.next, next: token.next } : { start, end: start, next: token.next };
  }
  let value = '';
  let runStart = i;
  while (i < css.length) {
    const c = css.charCodeAt(i);
    if (c === CLOSE_PAREN) return { url: value + css.slice(runStart, i), start, end: i, next: i + 1 };
    if (isWhitespace(c)) {
      const end = i;
      value += css.slice(runStart, i);
      i = skipWhitespace(css, i);
      if (i >= css.length) return { url: value, start, end, next: i };
      if (css.charCodeAt(i) === CLOSE_PAREN) return { url: value, start, end, next: i + 1 };
      return { start, end: start, next: skipBadUrl(css, i) };
    }
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE || c === OPEN_PAREN) return { start, end: start, next: skipBadUrl(css, i) };
    if (c === BACKSLASH) {
      value += css.slice(runStart, i);
      if (isNewline(css.charCodeAt(i + 1))) return { start, end: start, next: skipBadUrl(css, i + 1) };
      const escape = readEscape(css, i + 1);
      value += escape.char;
      i = escape.next;
      runStart = i;
      continue;
    }
    i++;
  }
  // An unquoted URL may run off the end of the input; CSS still treats it as a URL.
  return { url: value + css.slice(runStart), start, end: css.length, next: css.length };
}

/** Skips the rest of a bad `url(`, up to and including its `)`; escapes cannot end it. */
function skipBadUrl(css: string, at: number): number {
  let i = at;
  while (i < css.length) {
    const c = css.charCodeAt(i);
    if (c === CLOSE_PAREN) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  return css.length;
}
