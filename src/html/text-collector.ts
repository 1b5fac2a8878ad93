import { FoldedText } from './folded-text.js';
import { MAX_TEXT_CHARS, type ExtractedText } from './page-facts.js';
import { hasAny, tokens, type Attributes } from './tag-attributes.js';
import type { DocumentWindow } from './document-window.js';
import { byLength, nameAt } from './tag-names.js';
import { trimUrl } from './trim-url.js';

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
const BOILERPLATE_CAPABLE = new Set([
  'nav',
  'header',
  'footer',
  'aside',
  'div',
  'section',
  'ul',
  'ol',
  'menu',
  'form',
  'table',
  'dl',
  'figure',
  'details',
  'button',
  'span',
  'a',
  'i',
  ...HEADINGS,
]);

/** ARIA landmarks that are not the page's content: its navigation, its search box, its banner and footer. */
const BOILERPLATE_ROLES = new Set(['navigation', 'search', 'banner', 'contentinfo']);

/** The mark of a heading's permalink (Sphinx, Python-Markdown, MkDocs), dropped from the text of an `<a href="#...">`. */
const PERMALINK_MARKS = /¶/g;

const TEXT_ROLES = new Map<string, TextRole>([
  ...[
    'a',
    'abbr',
    'acronym',
    'b',
    'bdi',
    'bdo',
    'big',
    'cite',
    'code',
    'data',
    'del',
    'dfn',
    'em',
    'font',
    'i',
    'img',
    'ins',
    'kbd',
    'label',
    'mark',
    'nobr',
    'q',
    's',
    'samp',
    'small',
    'span',
    'strike',
    'strong',
    'sub',
    'sup',
    'time',
    'tt',
    'u',
    'var',
    'wbr',
  ].map((name) => [name, TextRole.Inline] as const),
  ...['template', 'noscript', 'svg', 'math'].map((name) => [name, TextRole.Hidden] as const),
  // The first title and every style sheet are read apart (the title is its own column).
  ...['script', 'style', 'title', 'textarea', 'iframe', 'noembed', 'noframes'].map((name) => [name, TextRole.RawHidden] as const),
  ...HEADINGS.map((name) => [name, TextRole.Heading] as const),
  // Named so that the elements that mark boilerplate, and main/article around a header or footer, are known.
  ...[...BOILERPLATE_CAPABLE, 'main', 'article']
    .filter((name) => !HEADINGS.includes(name) && !['span', 'a', 'i'].includes(name))
    .map((name) => [name, TextRole.Block] as const),
]);
const TEXT_TAGS = byLength([...TEXT_ROLES.keys()]);

/**
 * Which version of text extraction made a page's text: `reindex` extracts again the text of pages
 * an older version made. 1: every visible word. 2: the boilerplate a page marks is left out. 3: how
 * much of the text is link text is counted too.
 */
export const TEXT_EXTRACTION_VERSION = 3;

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
 * Collects a page's text from the scanner's events: pieces gathered with their whitespace folded as
 * they come (FoldedText), and joined once at the end. Stops taking text once well past the cap.
 *
 * Boilerplate the page marks (see `marksBoilerplate`) is kept apart, and used only when the page has
 * no other text: a page that is all navigation (a site map, say) is still found. Its extent is
 * counted by tag name (`<div role="navigation">` ends at the `</div>` that balances it), since the
 * scanner keeps no element stack.
 */
export class TextCollector {
  private readonly body = new FoldedText(2 * MAX_TEXT_CHARS);
  private readonly boilerplate = new FoldedText(2 * MAX_TEXT_CHARS);
  private headings: string[] = [];
  private heading: FoldedText | undefined;
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
  /** Inside `<a href>`: its words are link text. */
  private inLink = false;
  /** Letters (not spaces) of the body's text, and of those, letters of link text. */
  private textChars = 0;
  private linkChars = 0;
  /** Whether text events now are visible text. */
  reading = true;

  /** A start tag's name (from TEXT_TAGS, '' for others) as the tag begins; its role applies when the tag ends. */
  openTag(doc: DocumentWindow, start: number, end: number): void {
    const name = nameAt(doc, start, end, TEXT_TAGS);
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
        if (!selfClosing) this.heading = new FoldedText(2 * MAX_TEXT_CHARS);
        break;
    }
    this.separate();
    this.update();
  }

  closeTag(doc: DocumentWindow, start: number, end: number): void {
    const name = nameAt(doc, start, end, TEXT_TAGS);
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
    const chars = visibleChars(text);
    this.textChars += chars;
    if (this.inLink) this.linkChars += chars;
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
    let body = this.body.toString();
    // A page of nothing but boilerplate is read as all link text: navigation is what it is.
    const linkShare = body === '' ? 1 : this.textChars === 0 ? 0 : this.linkChars / this.textChars;
    if (body === '') body = this.boilerplate.toString();
    const text: ExtractedText = {
      body: body.slice(0, MAX_TEXT_CHARS),
      headings: this.headings.join('\n').slice(0, MAX_TEXT_CHARS),
      linkShare,
      version: TEXT_EXTRACTION_VERSION,
    };
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
    else if (name === 'a') {
      const href = attributes.get('href');
      this.inLink = href !== undefined;
      this.inFragmentLink = trimUrl(href ?? '').startsWith('#');
    }
  }

  private endRegion(name: string): void {
    if (name === '') return;
    if (this.skipping !== undefined && name === this.skipping.name && --this.skipping.depth === 0) this.skipping = undefined;
    if ((name === 'main' || name === 'article') && this.contentDepth > 0) this.contentDepth--;
    else if (name === 'a') this.inLink = this.inFragmentLink = false;
  }

  /** A space between words, which the text folds into any space already there. */
  private separate(): void {
    if (this.skipping !== undefined) {
      this.boilerplate.add(' ');
      return;
    }
    this.body.add(' ');
    this.heading?.add(' ');
  }

  private endHeading(): void {
    if (this.heading === undefined) return;
    const heading = this.heading.toString();
    if (heading !== '') this.headings.push(heading);
    this.heading = undefined;
  }

  private update(): void {
    this.reading = !this.rawHidden && this.hiddenDepth === 0;
  }
}

/** Characters of `text` that are not HTML whitespace: a measure of its words that markup's spacing does not change. */
function visibleChars(text: string): number {
  let chars = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d && code !== 0x0c) chars++;
  }
  return chars;
}

/** HTML's whitespace runs as one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/[\t\n\f\r ]+/g, ' ').trim();
}
