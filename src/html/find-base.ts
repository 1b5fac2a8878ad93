import { Tokenizer } from 'htmlparser2';
import { DocumentWindow } from './document-window.js';
import { piecesOf, type HtmlSource } from './page-facts.js';
import { TagScanner } from './tag-scanner.js';
import { trimUrl } from './trim-url.js';

/**
 * The href of the first `<base>` that has a non-empty one, as written (trimmed, entities
 * decoded). A page without the text `<base` is not scanned (pieces are: see `mentionsBase`);
 * others are scanned up to it only.
 */
export function findBase(html: HtmlSource): string | undefined {
  if (typeof html === 'string' && !/<base/i.test(html)) return undefined;
  const doc = new DocumentWindow();
  const scanner = new BaseScanner(doc);
  const tokenizer = new Tokenizer({ decodeEntities: true }, scanner);
  scanner.found = () => tokenizer.pause();
  for (const piece of piecesOf(html)) {
    doc.push(piece);
    tokenizer.write(piece);
    if (scanner.base !== undefined) break;
  }
  return scanner.base;
}

const LESS_THAN = 0x3c;

/**
 * Whether the bytes of a page in `encoding` may hold a `<base` tag: only a page that does is
 * worth a first pass for it. In any ASCII-compatible encoding the tag is its ASCII bytes, so
 * the bytes are searched, in any case; a UTF-16 page is always scanned.
 */
export function mentionsBase(body: Uint8Array, encoding: string): boolean {
  if (encoding.startsWith('utf-16')) return true;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  for (let at = bytes.indexOf(LESS_THAN); at !== -1; at = bytes.indexOf(LESS_THAN, at + 1)) {
    if (
      (bytes[at + 1]! | 0x20) === 0x62 &&
      (bytes[at + 2]! | 0x20) === 0x61 &&
      (bytes[at + 3]! | 0x20) === 0x73 &&
      (bytes[at + 4]! | 0x20) === 0x65
    )
      return true;
  }
  return false;
}

/** Reads the first `<base>` with a non-empty href, then tells `found` (which pauses the tokenizer). */
class BaseScanner extends TagScanner {
  base: string | undefined;
  found: () => void = () => {};

  protected startTag(): void {
    if (this.tagName !== 'base' || this.base !== undefined) return;
    const href = trimUrl(this.attribs.get('href') ?? '');
    if (href === '') return;
    this.base = href;
    this.found();
  }
}
