import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { findBase, baseOf } from '../../html/index.js';
import { rewriteCss } from './rewrite-css.js';
import { rewriteRefresh, rewriteSrcset, rewriteUrlList, urlRewriter, type RewriteTarget, type RewriteUrl } from './rewrite-url.js';

export interface HtmlRewriteOptions {
  /** The capture's URL: relative URLs resolve against it (or against its `<base>`). */
  pageUrl: string;
  /** Where rewritten URLs point (at the capture's timestamp). */
  target: RewriteTarget;
  /** Markup put at the top of the head (or of the document): the charset and the shim. */
  inject: string;
}

/** Attributes holding one URL, on any element (`data` only on `<object>`, where it is one); `srcdoc` is a document of its own. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'poster', 'action', 'formaction', 'background', 'xlink:href', 'longdesc', 'cite']);
/** `<link rel>` tokens that would make the browser contact a live host ahead of time. */
const HINT_RELS = new Set(['dns-prefetch', 'preconnect', 'prefetch', 'prerender']);
/** `<meta http-equiv>` values dropped: the capture's own policy, and charset claims that no longer hold (replay serves UTF-8). */
const DROPPED_EQUIV = new Set(['content-security-policy', 'content-security-policy-report-only', 'content-type']);

/**
 * Rewrites a captured HTML page for replay, in one streaming pass of htmlparser2's Tokenizer (the
 * crawler's own parser, so replay sees the URLs the crawl saw), replacing only the spans that
 * change: URL attributes, srcset, style attributes and `<style>` sheets, meta refresh, `<base>`.
 * Everything else, scripts included, is left byte for byte. See docs/serve.md, "How replay works".
 */
export function rewriteHtml(html: string, options: HtmlRewriteOptions): string {
  const rewrite = urlRewriter(baseOf(findBase(html), options.pageUrl), options.target);
  const scanner = new RewriteScanner(html, rewrite, options.inject, (srcdoc) => rewriteHtml(srcdoc, options));
  const tokenizer = new Tokenizer({ decodeEntities: true }, scanner);
  tokenizer.write(html);
  tokenizer.end();
  return scanner.output();
}

interface Attribute {
  name: string;
  value: string;
  /** From the name's first character to just after the value (its closing quote included). */
  start: number;
  end: number;
  nameEnd: number;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

class RewriteScanner implements TokenizerCallbacks {
  private readonly edits: Edit[] = [];
  private tagStart = 0;
  private tagName = '';
  private attributes: Attribute[] = [];
  private attribute: Attribute | undefined;
  /** Where the contents of an open `<style>` begin, or -1. */
  private styleStart = -1;
  private injected = false;
  /** Just after `<html ...>`: where the injection goes if the document has nothing else. */
  private afterHtmlTag = 0;

  constructor(
    private readonly html: string,
    private readonly rewrite: RewriteUrl,
    private readonly inject: string,
    /** Rewrites the document of an `<iframe srcdoc>`, which has the page's URL as its base. */
    private readonly rewriteSrcdoc: (html: string) => string,
  ) {}

  output(): string {
    let out = '';
    let copied = 0;
    for (const edit of this.edits) {
      out += this.html.slice(copied, edit.start) + edit.text;
      copied = edit.end;
    }
    return out + this.html.slice(copied);
  }

  onopentagname(start: number, endIndex: number): void {
    this.tagStart = start - 1;
    this.tagName = this.html.slice(start, endIndex).toLowerCase();
    this.attributes = [];
  }

  onattribname(start: number, endIndex: number): void {
    this.attribute = { name: this.html.slice(start, endIndex).toLowerCase(), value: '', start, end: endIndex, nameEnd: endIndex };
  }

  onattribdata(start: number, endIndex: number): void {
    if (this.attribute) this.attribute.value += this.html.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    if (this.attribute) this.attribute.value += String.fromCodePoint(codepoint);
  }

  onattribend(_quote: unknown, endIndex: number): void {
    if (!this.attribute) return;
    this.attribute.end = endIndex;
    this.attributes.push(this.attribute);
    this.attribute = undefined;
  }

  onopentagend(endIndex: number): void {
    this.startTag(endIndex);
  }

  onselfclosingtag(endIndex: number): void {
    this.startTag(endIndex);
  }

  onclosetag(start: number, endIndex: number): void {
    if (this.styleStart < 0 || this.html.slice(start, endIndex).toLowerCase() !== 'style') return;
    this.rewriteStyleSheet(start - 2);
  }

  ontext(start: number, endIndex: number): void {
    if (!this.injected && this.styleStart < 0 && /\S/.test(this.html.slice(start, endIndex))) this.injectAt(start);
  }

  ontextentity(): void {}

  onend(): void {
    if (this.styleStart >= 0) this.rewriteStyleSheet(this.html.length);
    if (!this.injected) this.injectAt(this.afterHtmlTag);
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}

  private startTag(endIndex: number): void {
    const tag = this.tagName;
    if (!this.injected) {
      if (tag === 'html') this.afterHtmlTag = endIndex + 1;
      else this.injectAt(tag === 'head' ? endIndex + 1 : this.tagStart);
    }
    if (this.dropped()) {
      this.edits.push({ start: this.tagStart, end: endIndex + 1, text: '' });
      return;
    }
    for (const attribute of this.attributes) this.rewriteAttribute(tag, attribute);
    if (tag === 'style') this.styleStart = endIndex + 1;
  }

  /** Tags that would reach a live host or contradict how replay serves the page. */
  private dropped(): boolean {
    if (this.tagName === 'link') {
      const rel = (this.get('rel') ?? '').toLowerCase().split(/[\t\n\f\r ]+/);
      return rel.some((token) => HINT_RELS.has(token));
    }
    if (this.tagName === 'meta') {
      return (
        this.get('charset') !== undefined ||
        DROPPED_EQUIV.has((this.get('http-equiv') ?? '').trim().toLowerCase()) ||
        // Replay needs same-origin referrers to place paths that escaped rewriting.
        (this.get('name') ?? '').trim().toLowerCase() === 'referrer'
      );
    }
    return false;
  }

  private rewriteAttribute(tag: string, attribute: Attribute): void {
    const { name, value } = attribute;
    let rewritten: string | undefined;
    if (URL_ATTRIBUTES.has(name) || (name === 'data' && tag === 'object')) rewritten = this.rewrite(value);
    else if (name === 'srcset' || name === 'imagesrcset') rewritten = rewriteSrcset(value, this.rewrite);
    else if (name === 'ping') rewritten = rewriteUrlList(value, this.rewrite);
    else if (name === 'style') rewritten = rewriteCss(value, this.rewrite);
    else if (name === 'srcdoc' && tag === 'iframe') rewritten = this.rewriteSrcdoc(value);
    else if (name === 'content' && tag === 'meta' && (this.get('http-equiv') ?? '').trim().toLowerCase() === 'refresh') {
      rewritten = rewriteRefresh(value, this.rewrite);
    } else if (name === 'integrity') {
      // Rewritten style sheets no longer hash to the capture's digest; the browser would refuse them.
      this.edits.push({ start: attribute.start, end: attribute.end, text: '' });
      return;
    }
    if (rewritten === undefined || rewritten === value) return;
    const spelledName = this.html.slice(attribute.start, attribute.nameEnd);
    this.edits.push({ start: attribute.start, end: attribute.end, text: `${spelledName}="${escapeAttribute(rewritten)}"` });
  }

  private rewriteStyleSheet(end: number): void {
    const css = this.html.slice(this.styleStart, end);
    const rewritten = rewriteCss(css, this.rewrite);
    if (rewritten !== css) this.edits.push({ start: this.styleStart, end, text: rewritten });
    this.styleStart = -1;
  }

  private injectAt(at: number): void {
    this.injected = true;
    this.edits.push({ start: at, end: at, text: this.inject });
  }

  private get(name: string): string | undefined {
    return this.attributes.find((attribute) => attribute.name === name)?.value;
  }
}

export function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => (c === '&' ? '&amp;' : c === '"' ? '&quot;' : c === '<' ? '&lt;' : '&gt;'));
}
