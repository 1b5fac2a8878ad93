import { CappedText } from './capped-text.js';
import type { DocumentWindow } from './document-window.js';
import { extractCssUrls } from './extract-css-urls.js';
import { parseRefresh } from './meta-refresh.js';
import { MAX_TEXT_CHARS, type FoundKind, type OnLink, type PageFacts } from './page-facts.js';
import { parseSrcset } from './srcset.js';
import { hasAny, tokens, type Attributes } from './tag-attributes.js';
import { READ_ATTRIBUTES, TagScanner, TEXT_READ_ATTRIBUTES } from './tag-scanner.js';
import type { TextCollector } from './text-collector.js';
import { trimUrl } from './trim-url.js';

/** Characters read of the first title and of each style sheet at most: what a page can make the parse hold. */
const MAX_COLLECTED_CHARS = 2 * MAX_TEXT_CHARS;

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

/** Turns finished start tags into facts and links, and collects the text of the first title and of style sheets. */
export class PageScanner extends TagScanner {
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
    if (this.text) this.text.openTag(this.doc, start, endIndex);
  }

  override onclosetag(start: number, endIndex: number): void {
    if (this.text) this.text.closeTag(this.doc, start, endIndex);
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
    if (srcset !== undefined) parseSrcset(srcset, this.addRequisite);
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

const NO_TOKENS: ReadonlySet<string> = new Set();

function relTokens(a: Attributes): ReadonlySet<string> {
  const rel = a.get('rel');
  return rel === undefined ? NO_TOKENS : tokens(rel);
}
