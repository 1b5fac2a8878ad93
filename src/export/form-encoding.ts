// Python's urllib.parse quote_plus and unquote_plus, which pywb's and cdxj-indexer's POST keys are
// spelled with: a key computed here must be the very string they compute from the same request.

const ALWAYS_SAFE = /^[A-Za-z0-9_.\-~]$/;

/** quote_plus(value, safe=''): UTF-8 bytes (a Buffer as it is), all but letters, digits and `_.-~` as %XX, space as `+`. */
export function quotePlus(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += byte === 0x20 ? '+' : ALWAYS_SAFE.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** urlencode(pairs): `name=value` pairs, each quote_plus'd, joined by `&`. */
export const urlencode = (pairs: Iterable<readonly [string, string | Buffer]>): string =>
  [...pairs].map(([name, value]) => `${quotePlus(name)}=${quotePlus(value)}`).join('&');

/** unquote_plus: `+` as a space, each run of %XX escapes decoded as UTF-8 (a bad sequence as U+FFFD); a stray `%` stays. */
export function unquotePlus(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}
