import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { CappedText } from './capped-text.js';
import { DocumentWindow } from './document-window.js';
import { extractCssUrls } from './extract-css-urls.js';

export type FoundKind = 'link' | 'requisite' | 'refresh' | 'canonical';

export interface FoundLink {
  /** As written: entities decoded, leading/trailing spaces and C0 controls trimmed, not resolved. */
  href: string;
  kind: FoundKind;
  /** The element's own `rel` says `nofollow`; page-wide `<meta name="robots">` is reported separately. */
  nofollow: boolean;
}

export interface PageFacts {
  /** Text of the first `<title>` outside SVG/MathML, whitespace collapsed and trimmed; absent if that is empty. */
  title?: string;
  /** From every `<meta name="robots">`, combined. */
  robots: { nofollow: boolean; noindex: boolean; noarchive: boolean };
  /** The first `<link rel="canonical">` with a non-empty href. */
  canonical?: string;
  /** The page's words, when asked for (see `extractPage`). */
  text?: ExtractedText;
}

/** What a search index keeps of a page besides its title. */
export interface ExtractedText {
  /** Visible text, whitespace collapsed, block elements and `<br>` separating words; at most MAX_TEXT_CHARS. */
  body: string;
  /** The text of each h1–h6, one per line. */
  headings: string;
  /** The first non-empty `<meta name="description">`. */
  description?: string;
  /** The TEXT_EXTRACTION_VERSION that made it. */
  version: number;
}

/** Text kept per page at most: 1 MiB of characters, far past any real article, so a huge page cannot bloat the index. */
export const MAX_TEXT_CHARS = 1024 * 1024;

/** Characters read of the first title and of each style sheet at most: what a page can make the parse hold. */
const MAX_COLLECTED_CHARS = 2 * MAX_TEXT_CHARS;

/**
 * Longest attribute value read (href, src, style, content...): longer ones are passed over as if
 * absent, since a value is held whole while its tag is read. URLs past MAX_URL_LENGTH are skipped
 * later anyway, and recorded as such up to this length.
 */
export const MAX_ATTRIBUTE_CHARS = 1024 * 1024;

/** `<link rel>` tokens naming something the page needs to render. */
const REQUISITE_REL = new Set([
  'stylesheet',
  'icon',
  'apple-touch-icon',
  'apple-touch-icon-precomposed',
  'mask-icon',
  'preload',
  'modulepreload',
]);

/** `<link rel>` tokens that name neither a page nor a requisite: connection hints and the manifest. */
const HINT_REL = new Set(['prefetch', 'preconnect', 'dns-prefetch', 'manifest']);

/** Receives each link as it is found: in document order, duplicates kept (the caller dedupes). */
export type OnLink = (href: string, kind: FoundKind, nofollow: boolean) => void;

/** A whole document, or the pieces it was decoded in (see `decodeHtmlPieces`): the same result either way. */
export type HtmlSource = string | Iterable<string>;

const piecesOf = (html: HtmlSource): Iterable<string> => (typeof html === 'string' ? [html] : html);

/**
 * Reads everything the crawler wants from a page in one streaming pass; no DOM is built. Links
 * go to `onLink` as they are found, never into an array, so a page of 300,000 links costs no
 * more memory than the caller keeps. The caller resolves them against `findBase` of the page,
 * read first because a `<base>` applies to the links before it too.
 *
 * This drives htmlparser2's `Tokenizer` rather than its `Parser`: the Parser keeps open elements in
 * an array it `unshift`s, so 100,000 unclosed `<div>`s take ~9 s and 200,000 ~40 s. We need no
 * element stack (only "inside the first title", "inside a style", "inside svg/math"), and the
 * Tokenizer alone is linear. It still does the HTML work: entity decoding (attribute rules included)
 * and raw-text/RCDATA handling of script, style, title, textarea, iframe, xmp, noembed, noframes.
 *
 * With `text`, the same pass also collects the words a reader sees (for full-text search): not
 * those of script, style, template, noscript, textarea, iframe, noembed, noframes, svg or math,
 * nor comments, nor the title (kept apart); every element but the inline ones (a, b, span, ...)
 * separates words, so `<p>a</p><p>b</p>` reads "a b" and `<b>c</b>rawl` reads "crawl".
 *
 * Given in pieces, the page is read a piece at a time and never held whole: what the pass keeps
 * is capped (text, title, style sheets, attribute values), so its memory does not grow with the page.
 */
export function extractPage(html: HtmlSource, onLink: OnLink, options: { text?: boolean } = {}): PageFacts {
  const doc = new DocumentWindow();
  const scanner = new PageScanner(doc, onLink, options.text === true ? new TextCollector() : undefined);
  const tokenizer = new Tokenizer({ decodeEntities: true }, scanner);
  for (const piece of piecesOf(html)) {
    doc.push(piece);
    tokenizer.write(piece);
    scanner.settle();
  }
  tokenizer.end();
  return scanner.facts;
}

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
    if ((bytes[at + 1]! | 0x20) === 0x62 && (bytes[at + 2]! | 0x20) === 0x61 && (bytes[at + 3]! | 0x20) === 0x73 && (bytes[at + 4]! | 0x20) === 0x65) return true;
  }
  return false;
}

/** The only attributes any scanner reads; others are skipped without being sliced or stored. */
const LINK_ATTRIBUTES = ['href', 'src', 'srcset', 'rel', 'data', 'poster', 'type', 'content', 'name', 'http-equiv', 'style'];
const READ_ATTRIBUTES = byLength(LINK_ATTRIBUTES);
/**
 * Collecting text also reads what marks boilerplate. Not `class` (Sphinx's `headerlink`, say): it is on
 * most tags, and reading it cost a fifth of the extraction; a permalink is known by its `¶` and `href="#..."`.
 */
const TEXT_READ_ATTRIBUTES = byLength([...LINK_ATTRIBUTES, 'role', 'aria-hidden']);
/** The only tag names any scanner reads; other tags get an empty name. */
const READ_TAGS = byLength(['a', 'area', 'iframe', 'frame', 'link', 'meta', 'img', 'image', 'source', 'video', 'script', 'audio', 'track', 'embed', 'object', 'input', 'title', 'style', 'svg', 'math', 'base']);

function byLength(names: string[]): string[][] {
  const table: string[][] = [];
  for (const name of names) (table[name.length] ??= []).push(name);
  return table;
}

/**
 * Which of `names` (lower-case, grouped by length) `doc` spells from `start` to `end` in any ASCII
 * case, or ''. Compared in place: most names are not wanted, and slicing and lower-casing each one was
 * a measurable share of parsing. `| 0x20` folds only A-Z onto a-z among the characters compared.
 */
function nameAt(doc: DocumentWindow, start: number, end: number, names: string[][]): string {
  const candidates = names[end - start];
  if (candidates === undefined) return '';
  // A name cut by the end of the previous piece is rare; only it is sliced.
  let html = doc.current;
  let at = start - doc.currentStart;
  if (at < 0) {
    html = doc.slice(start, end);
    at = 0;
  }
  next: for (const name of candidates) {
    for (let i = 0; i < name.length; i++) {
      const want = name.charCodeAt(i);
      const c = html.charCodeAt(at + i);
      if (c !== want && !(want >= 0x61 && want <= 0x7a && (c | 0x20) === want)) continue next;
    }
    return name;
  }
  return '';
}

/**
 * The read attributes of the current start tag, first occurrence of each: a few pairs in arrays
 * reused from tag to tag, since a Map per tag was a measurable share of parsing.
 */
class Attributes {
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private count = 0;

  clear(): void {
    this.count = 0;
  }

  get(name: string): string | undefined {
    for (let i = 0; i < this.count; i++) if (this.names[i] === name) return this.values[i];
    return undefined;
  }

  /** A repeated attribute is ignored, as in browsers. */
  add(name: string, value: string): void {
    if (this.get(name) !== undefined) return;
    this.names[this.count] = name;
    this.values[this.count] = value;
    this.count++;
  }
}

/** Receives Tokenizer events (offsets into the document) and hands each finished start tag with its attributes to `startTag`. */
abstract class TagScanner implements TokenizerCallbacks {
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

/** Turns finished start tags into facts and links, and collects the text of the first title and of style sheets. */
class PageScanner extends TagScanner {
  readonly facts: PageFacts = { robots: { nofollow: false, noindex: false, noarchive: false } };

  /** What text events currently feed: the first title, a style sheet, or nothing. */
  private collecting: 'title' | 'style' | undefined;
  private collected = new CappedText(MAX_COLLECTED_CHARS);
  private titleSeen = false;
  /** Open `<svg>`/`<math>` elements; their `<title>` is not the document's. */
  private foreignDepth = 0;

  constructor(
    doc: DocumentWindow,
    private readonly onLink: OnLink,
    private readonly text: TextCollector | undefined,
  ) {
    super(doc, text ? TEXT_READ_ATTRIBUTES : READ_ATTRIBUTES);
  }

  /** The end of a piece: what was kept of it is copied out, so the piece can go. */
  settle(): void {
    this.collected.settle();
    this.text?.settle();
  }

  override onopentagname(start: number, endIndex: number): void {
    super.onopentagname(start, endIndex);
    if (this.text) this.text.openTag(nameAt(this.doc, start, endIndex, TEXT_TAGS));
  }

  override onclosetag(start: number, endIndex: number): void {
    if (this.text) this.text.closeTag(nameAt(this.doc, start, endIndex, TEXT_TAGS));
    // Most end tags close nothing this scanner tracks; none it tracks has a name longer than 'title'.
    if ((this.collecting === undefined && this.foreignDepth === 0) || endIndex - start > 5) return;
    const name = this.doc.slice(start, endIndex).toLowerCase();
    if (name === this.collecting) this.finishCollecting();
    else if ((name === 'svg' || name === 'math') && this.foreignDepth > 0) this.foreignDepth--;
  }

  override ontext(start: number, endIndex: number): void {
    if (this.collecting !== undefined) this.collected.add(this.doc.slice(start, endIndex));
    else if (this.text?.reading) this.text.add(this.doc.slice(start, endIndex));
  }

  override ontextentity(codepoint: number): void {
    if (this.collecting !== undefined) this.collected.add(String.fromCodePoint(codepoint));
    else if (this.text?.reading) this.text.add(String.fromCodePoint(codepoint));
  }

  override onend(): void {
    // An unclosed <title> or <style> runs to the end of the document, as in browsers.
    if (this.collecting !== undefined) this.finishCollecting();
    if (this.text) this.facts.text = this.text.finish();
  }

  protected startTag(selfClosing: boolean): void {
    const tag = this.tagName;
    const a = this.attribs;
    switch (tag) {
      case 'a':
      case 'area':
        this.add(a.get('href'), 'link', relTokens(a).has('nofollow'));
        break;
      case 'iframe':
      case 'frame':
        this.add(a.get('src'), 'link', false);
        break;
      case 'link':
        this.startLink(a);
        break;
      case 'meta':
        this.startMeta(a);
        if (this.text) this.text.meta(a.get('name'), a.get('content'));
        break;
      case 'img':
        this.add(a.get('src'), 'requisite', false);
        this.addSrcset(a.get('srcset'));
        break;
      case 'source':
        this.add(a.get('src'), 'requisite', false);
        this.addSrcset(a.get('srcset'));
        break;
      case 'video':
        this.add(a.get('src'), 'requisite', false);
        this.add(a.get('poster'), 'requisite', false);
        break;
      case 'script':
      case 'audio':
      case 'track':
      case 'embed':
        this.add(a.get('src'), 'requisite', false);
        break;
      case 'object':
        this.add(a.get('data'), 'requisite', false);
        break;
      case 'input':
        if ((a.get('type') ?? '').trim().toLowerCase() === 'image') this.add(a.get('src'), 'requisite', false);
        break;
      case 'title':
        // The Tokenizer reads any <title> as RCDATA up to </title>, so text events here are its content.
        if (!this.titleSeen && this.foreignDepth === 0) {
          this.titleSeen = true;
          this.collecting = 'title';
          this.collected = new CappedText(MAX_COLLECTED_CHARS);
        }
        break;
      case 'style':
        this.collecting = 'style';
        this.collected = new CappedText(MAX_COLLECTED_CHARS);
        break;
      case 'svg':
      case 'math':
        // `<svg/>` is a complete element in HTML, so it opens nothing.
        if (!selfClosing) this.foreignDepth++;
        break;
    }
    const style = a.get('style');
    if (style !== undefined) extractCssUrls(style, this.addRequisite);
    if (this.text) this.text.startTag(selfClosing, a);
  }

  private startLink(a: Attributes): void {
    const rel = relTokens(a);
    const nofollow = rel.has('nofollow');
    if (rel.has('canonical')) {
      const href = trimUrl(a.get('href') ?? '');
      if (href !== '' && this.facts.canonical === undefined) this.facts.canonical = href;
      this.add(href, 'canonical', nofollow);
    } else if (hasAny(rel, REQUISITE_REL)) {
      this.add(a.get('href'), 'requisite', false);
    } else if (!hasAny(rel, HINT_REL)) {
      // alternate, next, prev, author... and a link with no rel all name pages.
      this.add(a.get('href'), 'link', nofollow);
    }
  }

  private startMeta(a: Attributes): void {
    const content = a.get('content') ?? '';
    if ((a.get('name') ?? '').trim().toLowerCase() === 'robots') {
      for (const token of content.toLowerCase().split(/[\s,]+/)) {
        if (token === 'none') {
          this.facts.robots.noindex = true;
          this.facts.robots.nofollow = true;
        } else if (token === 'noindex' || token === 'nofollow' || token === 'noarchive') {
          this.facts.robots[token] = true;
        }
      }
    }
    if ((a.get('http-equiv') ?? '').trim().toLowerCase() === 'refresh') {
      this.add(parseRefresh(content), 'refresh', false);
    }
  }

  private addSrcset(srcset: string | undefined): void {
    if (srcset !== undefined) for (const url of parseSrcset(srcset)) this.add(url, 'requisite', false);
  }

  private readonly addRequisite = (url: string): void => this.add(url, 'requisite', false);

  private add(raw: string | undefined, kind: FoundKind, nofollow: boolean): void {
    if (raw === undefined) return;
    const href = trimUrl(raw);
    if (href !== '') this.onLink(href, kind, nofollow);
  }

  private finishCollecting(): void {
    const text = this.collected.toString();
    if (this.collecting === 'title') {
      const title = text.replace(/[\t\n\f\r ]+/g, ' ').trim();
      if (title !== '') this.facts.title = title;
    } else {
      extractCssUrls(text, this.addRequisite);
    }
    this.collecting = undefined;
    this.collected = new CappedText(MAX_COLLECTED_CHARS);
  }
}

/** How an element bears on the text around it; any element not listed separates words. */
const TextRole = {
  Block: 0,
  /** Words run on across it: `<b>c</b>rawl` is one word. */
  Inline: 1,
  /** Its content is not read (template, noscript, svg, math), nested or not. */
  Hidden: 2,
  /** Raw text the tokenizer reads up to its end tag (script, textarea, ...): not read. */
  RawHidden: 3,
  Heading: 4,
} as const;
type TextRole = (typeof TextRole)[keyof typeof TextRole];

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/**
 * Elements that can mark their content as boilerplate: those whose end tag is required (an element
 * whose end is implied, like `<li>` or `<p>`, could not be told closed without an element stack).
 */
const BOILERPLATE_CAPABLE = new Set(['nav', 'header', 'footer', 'aside', 'div', 'section', 'ul', 'ol', 'menu', 'form', 'table', 'dl', 'figure', 'details', 'button', 'span', 'a', 'i', ...HEADINGS]);

/** ARIA landmarks that are not the page's content: its navigation, its search box, its banner and footer. */
const BOILERPLATE_ROLES = new Set(['navigation', 'search', 'banner', 'contentinfo']);

/** The mark of a heading's permalink (Sphinx, Python-Markdown, MkDocs), dropped from the text of an `<a href="#...">`. */
const PERMALINK_MARKS = /¶/g;

const TEXT_ROLES = new Map<string, TextRole>([
  ...['a', 'abbr', 'acronym', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd', 'label', 'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr'].map(
    (name) => [name, TextRole.Inline] as const,
  ),
  ...['template', 'noscript', 'svg', 'math'].map((name) => [name, TextRole.Hidden] as const),
  // The first title and every style sheet are read apart (the title is its own column).
  ...['script', 'style', 'title', 'textarea', 'iframe', 'noembed', 'noframes'].map((name) => [name, TextRole.RawHidden] as const),
  ...HEADINGS.map((name) => [name, TextRole.Heading] as const),
  // Named so that the elements that mark boilerplate, and main/article around a header or footer, are known.
  ...[...BOILERPLATE_CAPABLE, 'main', 'article'].filter((name) => !HEADINGS.includes(name) && !['span', 'a', 'i'].includes(name)).map((name) => [name, TextRole.Block] as const),
]);
const TEXT_TAGS = byLength([...TEXT_ROLES.keys()]);

/**
 * Which version of text extraction made a page's text: `reindex` extracts again the text of pages
 * an older version made. 1: every visible word. 2: the boilerplate a page marks is left out.
 */
export const TEXT_EXTRACTION_VERSION = 2;

/**
 * Whether an element's content is boilerplate as the page marks it: navigation (`<nav>`, or an ARIA
 * role of navigation, search, banner or contentinfo), a page-level `<header>`/`<footer>` (not one of
 * a `<main>` or `<article>`), or `aria-hidden="true"`.
 */
function marksBoilerplate(name: string, attributes: Attributes, inContent: boolean): boolean {
  if (name === 'nav') return true;
  if ((name === 'header' || name === 'footer') && !inContent) return true;
  if ((attributes.get('aria-hidden') ?? '').trim().toLowerCase() === 'true') return true;
  const role = attributes.get('role');
  return role !== undefined && hasAny(tokens(role), BOILERPLATE_ROLES);
}

/**
 * Collects a page's text from the scanner's events: pieces gathered, joined and collapsed once at
 * the end, so a page costs one pass and one join. Stops taking text once well past the cap.
 *
 * Boilerplate the page marks (see `marksBoilerplate`) is kept apart, and used only when the page has
 * no other text: a page that is all navigation (a site map, say) is still found. Its extent is
 * counted by tag name (`<div role="navigation">` ends at the `</div>` that balances it), since the
 * scanner keeps no element stack.
 */
class TextCollector {
  private readonly body = new CappedText(2 * MAX_TEXT_CHARS);
  private readonly boilerplate = new CappedText(2 * MAX_TEXT_CHARS);
  private headings: string[] = [];
  private heading: CappedText | undefined;
  private description: string | undefined;
  private name = '';
  private role: TextRole = TextRole.Block;
  private hiddenDepth = 0;
  private rawHidden = false;
  /** The boilerplate element being passed over, and how many of its name are open. */
  private skipping: { name: string; depth: number } | undefined;
  /** Open `<main>` and `<article>` elements: a header or footer inside one is content. */
  private contentDepth = 0;
  /** Inside `<a href="#...">`, where a `¶` is a permalink's mark. */
  private inFragmentLink = false;
  /** Whether text events now are visible text. */
  reading = true;

  /** An element's name (from TEXT_TAGS, '' for others) as its start tag begins; its role applies when the tag ends. */
  openTag(name: string): void {
    this.name = name;
    this.role = name === '' ? TextRole.Block : TEXT_ROLES.get(name)!;
  }

  startTag(selfClosing: boolean, attributes: Attributes): void {
    this.startRegion(selfClosing, attributes);
    switch (this.role) {
      case TextRole.Inline:
        return;
      case TextRole.Hidden:
        // `<svg/>` is complete in HTML; `<noscript/>` is not, but opens nothing worth hiding the rest of the page for.
        if (!selfClosing) this.hiddenDepth++;
        break;
      case TextRole.RawHidden:
        // The tokenizer reads its content as raw text up to its own end tag, whatever `/>` says.
        this.rawHidden = true;
        break;
      case TextRole.Heading:
        this.endHeading();
        if (!selfClosing) this.heading = new CappedText(2 * MAX_TEXT_CHARS);
        break;
    }
    this.separate();
    this.update();
  }

  closeTag(name: string): void {
    const role = name === '' ? TextRole.Block : TEXT_ROLES.get(name)!;
    if (!this.rawHidden) this.endRegion(name);
    if (role === TextRole.Inline) return;
    if (this.rawHidden) {
      // In raw text the only end tag the tokenizer reports is the one that ends it.
      this.rawHidden = false;
    } else if (role === TextRole.Hidden) {
      if (this.hiddenDepth > 0) this.hiddenDepth--;
    } else if (role === TextRole.Heading) {
      this.endHeading();
    }
    this.separate();
    this.update();
  }

  add(text: string): void {
    if (this.inFragmentLink) text = text.replace(PERMALINK_MARKS, '');
    if (this.skipping !== undefined) {
      if (this.boilerplate.length < 2 * MAX_TEXT_CHARS) this.boilerplate.add(text);
      return;
    }
    if (this.body.length >= 2 * MAX_TEXT_CHARS) return;
    this.body.add(text);
    this.heading?.add(text);
  }

  settle(): void {
    this.body.settle();
    this.boilerplate.settle();
    this.heading?.settle();
  }

  meta(name: string | undefined, content: string | undefined): void {
    if (this.description !== undefined || content === undefined || (name ?? '').trim().toLowerCase() !== 'description') return;
    const description = collapse(content);
    if (description !== '') this.description = description;
  }

  finish(): ExtractedText {
    this.endHeading();
    let body = collapse(this.body.toString());
    if (body === '') body = collapse(this.boilerplate.toString());
    const text: ExtractedText = { body: body.slice(0, MAX_TEXT_CHARS), headings: this.headings.join('\n').slice(0, MAX_TEXT_CHARS), version: TEXT_EXTRACTION_VERSION };
    if (this.description !== undefined) text.description = this.description;
    return text;
  }

  /** Boilerplate regions, main/article, and fragment links, as a start tag ends. */
  private startRegion(selfClosing: boolean, attributes: Attributes): void {
    const { name } = this;
    // `/>` on a non-void HTML element is ignored by browsers; counting it as opening nothing keeps an odd page from hiding the rest.
    if (name === '' || selfClosing) return;
    if (this.skipping !== undefined) {
      if (name === this.skipping.name) this.skipping.depth++;
    } else if (BOILERPLATE_CAPABLE.has(name) && marksBoilerplate(name, attributes, this.contentDepth > 0)) {
      this.skipping = { name, depth: 1 };
    }
    if (name === 'main' || name === 'article') this.contentDepth++;
    else if (name === 'a') this.inFragmentLink = trimUrl(attributes.get('href') ?? '').startsWith('#');
  }

  private endRegion(name: string): void {
    if (name === '') return;
    if (this.skipping !== undefined && name === this.skipping.name && --this.skipping.depth === 0) this.skipping = undefined;
    if ((name === 'main' || name === 'article') && this.contentDepth > 0) this.contentDepth--;
    else if (name === 'a') this.inFragmentLink = false;
  }

  private separate(): void {
    if (this.skipping !== undefined) {
      if (this.boilerplate.length > 0 && !this.boilerplate.endsWithSpace) this.boilerplate.add(' ');
      return;
    }
    if (this.body.length > 0 && !this.body.endsWithSpace) this.body.add(' ');
    if (this.heading && this.heading.length > 0) this.heading.add(' ');
  }

  private endHeading(): void {
    if (this.heading === undefined) return;
    const heading = collapse(this.heading.toString());
    if (heading !== '') this.headings.push(heading);
    this.heading = undefined;
  }

  private update(): void {
    this.reading = !this.rawHidden && this.hiddenDepth === 0;
  }
}

/** HTML's whitespace runs as one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/[\t\n\f\r ]+/g, ' ').trim();
}

const NO_TOKENS: ReadonlySet<string> = new Set();

function relTokens(a: Attributes): ReadonlySet<string> {
  const rel = a.get('rel');
  return rel === undefined ? NO_TOKENS : tokens(rel);
}

/** An attribute's space-separated tokens, lower-cased (rel, role, class). */
function tokens(value: string): ReadonlySet<string> {
  return new Set(value.toLowerCase().split(/[\t\n\f\r ]+/));
}

function hasAny(tokens: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const token of tokens) if (wanted.has(token)) return true;
  return false;
}

/** Strips what the URL parser strips from both ends: C0 controls and spaces. A loop, as `/\s+$/` backtracks. */
export function trimUrl(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return value.slice(start, end);
}

function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

const COMMA = 0x2c;

/**
 * The URLs of a `srcset`, per HTML's "parse a srcset attribute": a URL runs to whitespace and loses
 * trailing commas, so `a.jpg?x=1,2 1x` keeps its comma but `a.jpg, b.jpg` is two URLs; descriptors
 * run to the next comma outside parentheses.
 */
function parseSrcset(srcset: string): string[] {
  const urls: string[] = [];
  const end = srcset.length;
  let i = 0;
  for (;;) {
    while (i < end && (isAsciiWhitespace(srcset.charCodeAt(i)) || srcset.charCodeAt(i) === COMMA)) i++;
    if (i >= end) return urls;
    const urlStart = i;
    while (i < end && !isAsciiWhitespace(srcset.charCodeAt(i))) i++;
    let urlEnd = i;
    if (srcset.charCodeAt(urlEnd - 1) === COMMA) {
      // "a.jpg," ends the candidate: there are no descriptors to read.
      while (urlEnd > urlStart && srcset.charCodeAt(urlEnd - 1) === COMMA) urlEnd--;
    } else {
      i = skipDescriptors(srcset, i);
    }
    if (urlEnd > urlStart) urls.push(srcset.slice(urlStart, urlEnd));
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

/**
 * The URL of a `<meta http-equiv="refresh">` content, per HTML's "shared declarative refresh steps":
 * a delay, then `;` or `,` or whitespace, then optionally `url=`, then the URL, optionally quoted.
 * Undefined when there is no URL (a plain reload) or the content is not a refresh at all.
 */
function parseRefresh(content: string): string | undefined {
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
  if ((content.charCodeAt(i) | 0x20) === 0x75 && (content.charCodeAt(i + 1) | 0x20) === 0x72 && (content.charCodeAt(i + 2) | 0x20) === 0x6c) {
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
    return content.slice(i, close === -1 ? end : close);
  }
  return content.slice(i);
}
