import { isUtf8 } from 'node:buffer';
import { decodePieces, decodeWindows1252 } from './decode-pieces.js';

/** Which step of the detection decided the encoding. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'utf-8' | 'fallback';

/** `encoding` is TextDecoder's canonical name ('utf-8', 'gbk', 'shift_jis', 'windows-1252', ...). */
export interface SniffedCharset {
  encoding: string;
  source: CharsetSource;
}

/** The WHATWG prescan looks no further than this. */
const PRESCAN_BYTES = 1024;

const BOMS: ReadonlyArray<{ bytes: readonly number[]; encoding: string }> = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
];

/**
 * Encoding detection for an HTML body, in the WHATWG order:
 * BOM, Content-Type charset, <meta> prescan, then a UTF-8 validity check, then windows-1252.
 */
export function sniffCharset(body: Uint8Array, contentType: string | null): SniffedCharset {
  const { encoding, source } = sniff(body, contentType, false);
  return { encoding, source };
}

/**
 * The sniffed charset; with `decode`, the text too when the UTF-8 validity check decoded it
 * (else the check only validates, building no string).
 */
function sniff(body: Uint8Array, contentType: string | null, decode: boolean): SniffedCharset & { text?: string } {
  const bom = bomOf(body);
  if (bom) return { encoding: bom.encoding, source: 'bom' };

  const declared = headerCharset(contentType);
  const fromHeader = declared === null ? null : resolveLabel(declared);
  if (fromHeader) return { encoding: fromHeader, source: 'header' };

  const fromMeta = prescan(body.subarray(0, PRESCAN_BYTES));
  if (fromMeta) return { encoding: fromMeta, source: 'meta' };

  if (!decode) return isUtf8(body) ? { encoding: 'utf-8', source: 'utf-8' } : { encoding: 'windows-1252', source: 'fallback' };
  const text = utf8OrNull(body);
  return text !== null ? { encoding: 'utf-8', source: 'utf-8', text } : { encoding: 'windows-1252', source: 'fallback' };
}

/** Decodes with the sniffed encoding; malformed bytes become U+FFFD rather than an error. */
export function decodeHtml(body: Uint8Array, contentType: string | null): { text: string; encoding: string; source: CharsetSource } {
  const { encoding, source, text: decoded } = sniff(body, contentType, true);
  if (decoded !== undefined) return { text: decoded, encoding, source };
  const bytes = withoutBom(body, source);
  const text = encoding === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes);
  return { text, encoding, source };
}

/**
 * Decodes as `decodeHtml` does, a piece at a time (see `decodePieces`), so a large page is
 * never one string: the same text, cut into pieces. Each call of `pieces` starts over.
 */
export function decodeHtmlPieces(
  body: Uint8Array,
  contentType: string | null,
): { pieces: () => Iterable<string>; encoding: string; source: CharsetSource } {
  const { encoding, source } = sniff(body, contentType, false);
  const bytes = withoutBom(body, source);
  return { pieces: () => decodePieces(bytes, encoding), encoding, source };
}

/** The BOM is dropped by hand so that only a BOM that decided the encoding is removed. */
function withoutBom(body: Uint8Array, source: CharsetSource): Uint8Array {
  return source === 'bom' ? body.subarray(bomOf(body)!.bytes.length) : body;
}

function bomOf(body: Uint8Array): (typeof BOMS)[number] | undefined {
  // Most bodies start with '<' or whitespace: one byte rules every BOM out.
  const first = body[0];
  if (first !== 0xef && first !== 0xfe && first !== 0xff) return undefined;
  return BOMS.find(({ bytes }) => startsWith(body, bytes));
}

const startsWith = (body: Uint8Array, prefix: readonly number[]) => prefix.every((byte, i) => body[i] === byte);

/**
 * TextDecoder's canonical name for a label, or null if it cannot decode it.
 * Node's TextDecoder rejects x-user-defined, which WHATWG maps to windows-1252 for HTML;
 * it also rejects the "replacement" labels (iso-2022-kr, hz-gb-2312, ...), which are thus skipped like unknown ones.
 */
function resolveLabel(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return label.trim().toLowerCase() === 'x-user-defined' ? 'windows-1252' : null;
  }
}

/** The charset parameter of a Content-Type, quoted or not; parameters are split outside quotes only. */
function headerCharset(contentType: string | null): string | null {
  if (!contentType) return null;
  const params = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"?|[^;]*)/g;
  for (const [, name, raw] of contentType.matchAll(params)) {
    if (name!.toLowerCase() !== 'charset') continue;
    const value = raw!.startsWith('"') ? raw!.replace(/^"|"$/g, '').replace(/\\(.)/g, '$1') : raw!.trim();
    return value === '' ? null : value;
  }
  return null;
}

/**
 * The body as UTF-8, or null when it is not valid UTF-8: the check is a full decode, so its text is
 * kept rather than decoded again. No BOM reaches here (a BOM decides first), so none is stripped.
 */
function utf8OrNull(body: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return null;
  }
}

// ---- WHATWG "prescan a byte stream to determine its encoding", over a latin1 view (one char per byte) ----

const isSpace = (c: string | undefined) => c === '\t' || c === '\n' || c === '\f' || c === '\r' || c === ' ';
const isAsciiAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);
/** ASCII-only lower-casing, as the spec asks: toLowerCase() would also fold latin1 letters such as 'À'. */
const asciiLower = (s: string) => (/[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : s);

interface Attribute {
  name: string;
  value: string;
}

/** A cursor over the prescanned bytes; reaching the end mid-construct means "no answer", as in the spec. */
class Scanner {
  pos = 0;
  constructor(readonly s: string) {}

  /** `word` is lower-case; compared code by code, since this runs at every position of the prescan. */
  startsWithCi(word: string): boolean {
    for (let i = 0; i < word.length; i += 1) {
      let code = this.s.charCodeAt(this.pos + i);
      if (code >= 65 && code <= 90) code += 32;
      if (code !== word.charCodeAt(i)) return false;
    }
    return true;
  }

  /** The spec's "get an attribute"; null when there is none (a '>' or the end of the input). */
  attribute(): Attribute | null {
    const s = this.s;
    while (isSpace(s[this.pos]) || s[this.pos] === '/') this.pos++;
    if (this.pos >= s.length || s[this.pos] === '>') return null;
    let name = '';
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) return null;
      if (c === '=' && name !== '') break;
      if (isSpace(c)) {
        while (isSpace(s[this.pos])) this.pos++;
        if (s[this.pos] !== '=') return { name, value: '' };
        break;
      }
      if (c === '/' || c === '>') return { name, value: '' };
      name += asciiLower(c);
      this.pos++;
    }
    this.pos++; // past '='
    while (isSpace(s[this.pos])) this.pos++;
    const quote = s[this.pos];
    if (quote === '"' || quote === "'") {
      const end = s.indexOf(quote, this.pos + 1);
      if (end < 0) {
        this.pos = s.length;
        return null;
      }
      const value = asciiLower(s.slice(this.pos + 1, end));
      this.pos = end + 1;
      return { name, value };
    }
    if (quote === '>') return { name, value: '' };
    let value = '';
    while (this.pos < s.length && !isSpace(s[this.pos]) && s[this.pos] !== '>') value += asciiLower(s[this.pos++]!);
    if (this.pos >= s.length) return null;
    return { name, value };
  }
}

function prescan(bytes: Uint8Array): string | null {
  // A BOM-less '<?x' in UTF-16 is the one case where the bytes themselves say UTF-16 (the spec's first step).
  if (startsWith(bytes, [0x3c, 0x00, 0x3f, 0x00, 0x78, 0x00])) return 'utf-16le';
  if (startsWith(bytes, [0x00, 0x3c, 0x00, 0x3f, 0x00, 0x78])) return 'utf-16be';
  const scan = new Scanner(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
  const s = scan.s;
  while (scan.pos < s.length) {
    if (scan.startsWithCi('<!--')) {
      // A comment ends at the first '-->' whose '>' follows the '<!' — so '<!-->' is already closed.
      const end = s.indexOf('-->', scan.pos + 2);
      if (end < 0) return null;
      scan.pos = end + 3;
    } else if (scan.startsWithCi('<meta') && (isSpace(s[scan.pos + 5]) || s[scan.pos + 5] === '/')) {
      scan.pos += 6;
      const found = metaCharset(scan);
      if (found) return found;
    } else if (s[scan.pos] === '<' && (isAsciiAlpha(s[scan.pos + 1]) || (s[scan.pos + 1] === '/' && isAsciiAlpha(s[scan.pos + 2])))) {
      // Other tags are skipped attribute by attribute, so '<meta' inside an attribute value is not a tag.
      while (scan.pos < s.length && !isSpace(s[scan.pos]) && s[scan.pos] !== '>') scan.pos++;
      while (scan.attribute() !== null);
      scan.pos++;
    } else if (s[scan.pos] === '<' && (s[scan.pos + 1] === '!' || s[scan.pos + 1] === '/' || s[scan.pos + 1] === '?')) {
      const end = s.indexOf('>', scan.pos);
      if (end < 0) return null;
      scan.pos = end + 1;
    } else {
      scan.pos++;
    }
  }
  return null;
}

/** The attributes of one <meta> tag, judged as the spec does; null when it declares nothing usable. */
function metaCharset(scan: Scanner): string | null {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | null = null;
  let charset: string | null | undefined; // undefined: none yet; null: a label that resolved to nothing
  for (let attr = scan.attribute(); attr !== null; attr = scan.attribute()) {
    if (seen.has(attr.name)) continue;
    seen.add(attr.name);
    if (attr.name === 'http-equiv') {
      if (attr.value === 'content-type') gotPragma = true;
    } else if (attr.name === 'content') {
      const label = charsetFromContent(attr.value);
      const encoding = label === null ? null : resolveLabel(label);
      if (encoding && charset === undefined) {
        charset = encoding;
        needPragma = true;
      }
    } else if (attr.name === 'charset') {
      charset = resolveLabel(attr.value);
      needPragma = false;
    }
  }
  if (needPragma === null || (needPragma && !gotPragma) || !charset) return null;
  // A page that really were UTF-16 could not be prescanned as ASCII, so the declaration must be wrong.
  if (charset === 'utf-16le' || charset === 'utf-16be') return 'utf-8';
  return charset;
}

/** The spec's "extracting a character encoding from a meta element" on a content attribute. */
function charsetFromContent(content: string): string | null {
  let from = 0;
  for (;;) {
    const at = asciiLower(content).indexOf('charset', from);
    if (at < 0) return null;
    let i = at + 'charset'.length;
    while (isSpace(content[i])) i++;
    if (content[i] !== '=') {
      from = i;
      continue;
    }
    i++;
    while (isSpace(content[i])) i++;
    const quote = content[i];
    if (quote === '"' || quote === "'") {
      const end = content.indexOf(quote, i + 1);
      return end < 0 ? null : content.slice(i + 1, end);
    }
    if (quote === undefined) return null;
    const rest = content.slice(i);
    return rest.slice(0, rest.search(/[\t\n\f\r ;]|$/));
  }
}
