import type { TokenizerCallbacks } from 'htmlparser2';
import type { DocumentWindow } from './document-window.js';
import { MAX_ATTRIBUTE_CHARS } from './page-facts.js';
import { Attributes } from './tag-attributes.js';
import { byLength, nameAt } from './tag-names.js';

/** The only attributes any scanner reads; others are skipped without being sliced or stored. */
export const LINK_ATTRIBUTES = ['href', 'src', 'srcset', 'rel', 'data', 'poster', 'type', 'content', 'name', 'http-equiv', 'style'];
export const READ_ATTRIBUTES = byLength(LINK_ATTRIBUTES);
/**
 * Collecting text also reads what marks boilerplate. Not `class` (Sphinx's `headerlink`, say): it is on
 * most tags, and reading it cost a fifth of the extraction; a permalink is known by its `¶` and `href="#..."`.
 */
export const TEXT_READ_ATTRIBUTES = byLength([...LINK_ATTRIBUTES, 'role', 'aria-hidden']);
/** The only tag names any scanner reads; other tags get an empty name. */
export const READ_TAGS = byLength([
  'a',
  'area',
  'iframe',
  'frame',
  'link',
  'meta',
  'img',
  'image',
  'source',
  'video',
  'script',
  'audio',
  'track',
  'embed',
  'object',
  'input',
  'title',
  'style',
  'svg',
  'math',
  'base',
]);

/** Receives Tokenizer events (offsets into the document) and hands each finished start tag with its attributes to `startTag`. */
export abstract class TagScanner implements TokenizerCallbacks {
  protected tagName = '';
  protected readonly attribs = new Attributes();
  /** The attribute being read, or '' when it is one no scanner reads (or too long to read). */
  private attribName = '';
  private attribValue = '';

  constructor(
    protected readonly doc: DocumentWindow,
    private readonly readAttributes: string[][] = READ_ATTRIBUTES,
  ) {}

  protected abstract startTag(selfClosing: boolean): void;

  onopentagname(start: number, endIndex: number): void {
    this.attribs.clear();
    const name = nameAt(this.doc, start, endIndex, READ_TAGS);
    // HTML parses `<image>` as `<img>` (htmlparser2's Parser does the same).
    this.tagName = name === 'image' ? 'img' : name;
  }

  onattribname(start: number, endIndex: number): void {
    this.attribValue = '';
    this.attribName = nameAt(this.doc, start, endIndex, this.readAttributes);
  }

  onattribdata(start: number, endIndex: number): void {
    if (this.attribName !== '' && this.fits(endIndex - start)) this.attribValue += this.doc.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    if (this.attribName !== '' && this.fits(2)) this.attribValue += String.fromCodePoint(codepoint);
  }

  /** Whether `length` more characters keep the value within MAX_ATTRIBUTE_CHARS; past it, the attribute is dropped. */
  private fits(length: number): boolean {
    if (this.attribValue.length + length <= MAX_ATTRIBUTE_CHARS) return true;
    this.attribName = '';
    this.attribValue = '';
    return false;
  }

  onattribend(): void {
    if (this.attribName !== '') this.attribs.add(this.attribName, this.attribValue);
    this.attribValue = '';
  }

  onopentagend(): void {
    this.startTag(false);
  }

  onselfclosingtag(): void {
    this.startTag(true);
  }

  onclosetag(_start: number, _endIndex: number): void {}
  ontext(_start: number, _endIndex: number): void {}
  ontextentity(_codepoint: number): void {}
  onend(): void {}
  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
}
