import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** `page`: a `<urlset><url><loc>`, a page to crawl. `sitemap`: a `<sitemapindex><sitemap><loc>`, a further sitemap to fetch. */
export type SitemapEntry = 'page' | 'sitemap';

/**
 * Hands `onLoc` the `<loc>`s of a sitemap or sitemap index, in document order, as they are read in
 * one streaming pass; no DOM and no array is built, so 300,000 entries cost what the caller keeps.
 *
 * Only a `<loc>` whose parent is `<url>` or `<sitemap>` counts, so extension elements such as
 * `<image:image><image:loc>` are not mistaken for pages. Namespace prefixes are stripped and names
 * compared case-insensitively. Values are trimmed and XML-entity decoded; CDATA is honoured.
 *
 * Like the page extractor this drives htmlparser2's `Tokenizer` (in XML mode), not its `Parser`:
 * the Parser's element stack makes deep unclosed nesting quadratic, and sitemaps come from servers
 * we do not trust.
 */
export function extractSitemap(xml: string, onLoc: (entry: SitemapEntry, loc: string) => void): void {
  const scanner = new SitemapScanner(xml, onLoc);
  const tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: true }, scanner);
  tokenizer.write(xml);
  tokenizer.end();
}

/** True when `body` starts with the gzip magic bytes 1F 8B (the caller gunzips). */
export function isGzip(body: Uint8Array): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/**
 * How far down the open-element stack a close tag may look for its match. Sitemaps are about four
 * deep; an unbounded search would make many stray close tags over deep nesting quadratic.
 */
const CLOSE_SEARCH_DEPTH = 16;

class SitemapScanner implements TokenizerCallbacks {
  /** Local names of open elements, innermost last. */
  private readonly open: string[] = [];
  private tagName = '';
  /** What the open `<loc>` names, if one is open and counts. */
  private target: SitemapEntry | undefined;
  /** Stack depth of that `<loc>`, so an implied close of it (by `</url>`) still ends it. */
  private targetDepth = 0;
  private text: string[] = [];

  constructor(
    private readonly xml: string,
    private readonly onLoc: (entry: SitemapEntry, loc: string) => void,
  ) {}

  onopentagname(start: number, endIndex: number): void {
    this.tagName = localName(this.xml.slice(start, endIndex));
  }

  onopentagend(): void {
    const parent = this.open[this.open.length - 1];
    this.open.push(this.tagName);
    if (this.tagName === 'loc' && this.target === undefined) {
      if (parent === 'url') this.target = 'page';
      else if (parent === 'sitemap') this.target = 'sitemap';
      this.targetDepth = this.open.length;
      this.text = [];
    }
  }

  onselfclosingtag(): void {
    // `<loc/>` has no text; it neither opens nor matters.
  }

  onclosetag(start: number, endIndex: number): void {
    const name = localName(this.xml.slice(start, endIndex));
    const stop = Math.max(0, this.open.length - CLOSE_SEARCH_DEPTH);
    for (let i = this.open.length - 1; i >= stop; i--) {
      if (this.open[i] !== name) continue;
      // Closing an element also closes whatever was left open inside it.
      if (this.target !== undefined && this.targetDepth > i) this.finishLoc();
      this.open.length = i;
      return;
    }
    // No match nearby: a stray close tag, ignored.
  }

  ontext(start: number, endIndex: number): void {
    if (this.target !== undefined) this.text.push(this.xml.slice(start, endIndex));
  }

  ontextentity(codepoint: number): void {
    if (this.target !== undefined) this.text.push(String.fromCodePoint(codepoint));
  }

  oncdata(start: number, endIndex: number, endOffset: number): void {
    // Generators do write `<loc><![CDATA[https://...]]></loc>`.
    if (this.target !== undefined) this.text.push(this.xml.slice(start, endIndex - endOffset));
  }

  onend(): void {
    if (this.target !== undefined) this.finishLoc();
  }

  onattribname(): void {}
  onattribdata(): void {}
  onattribentity(): void {}
  onattribend(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}

  private finishLoc(): void {
    const loc = this.text.join('').trim();
    if (loc !== '' && this.target !== undefined) this.onLoc(this.target, loc);
    this.target = undefined;
    this.text = [];
  }
}

/** `ns:LOC` → `loc`. */
function localName(name: string): string {
  return name.slice(name.lastIndexOf(':') + 1).toLowerCase();
}
