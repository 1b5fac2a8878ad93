/**
 * The deduplication key of a WHATWG-normalised http(s) URL. WHATWG keeps percent-escapes as
 * written, so `%e6`/`%E6` and `%41`/`A` survive parsing as different strings although RFC 3986
 * §6.2.2 calls them equivalent; the key folds them. The fetch URL itself is left alone.
 */
export function urlKey(href: string): string {
  // Only escapes change, and most URLs have none.
  if (!href.includes('%')) return href;
  // After WHATWG serialisation '/', '?', '#' and '@' inside components are escaped, so these delimiters are reliable.
  const parts = /^([a-z][a-z\d+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/is.exec(href);
  if (!parts) return href;
  const [, scheme, authority, path, query = '', fragment = ''] = parts;
  const at = authority!.lastIndexOf('@');
  // Userinfo escapes are only upper-cased: the unreserved rule is asked for path and query, where links differ in practice.
  const userinfo = at < 0 ? '' : upperHex(authority!.slice(0, at + 1));
  const hostPort = authority!.slice(at + 1);
  return scheme! + userinfo + hostPort + foldEscapes(path!) + foldEscapes(query) + fragment;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = /^[0-9A-Fa-f]$/;
const isHex = (c: string | undefined) => c !== undefined && HEX.test(c);

function upperHex(s: string): string {
  return s.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

/** Upper-cases every escape and decodes those of unreserved characters. */
function foldEscapes(s: string): string {
  let out = '';
  let copied = 0;
  for (let i = s.indexOf('%'); i !== -1; i = s.indexOf('%', i)) {
    if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
      i++;
      continue;
    }
    out += s.slice(copied, i);
    const char = String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
    out += UNRESERVED.test(char) && !formsEscape(out, char) ? char : s.slice(i, i + 3).toUpperCase();
    i += 3;
    copied = i;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * WHATWG keeps a stray '%' as is, so decoding right after one could forge a new escape
 * (`%%34%31` → `%41`) that a second pass would decode again; such an escape is kept,
 * which makes the key idempotent. A '%' at the last or second-to-last place of `out` is
 * always a stray one, since kept escapes end in two hex digits.
 */
function formsEscape(out: string, char: string): boolean {
  if (!isHex(char)) return false;
  return out.endsWith('%') || (out.at(-2) === '%' && isHex(out.at(-1)));
}
