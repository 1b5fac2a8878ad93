import { Tokenizer } from 'htmlparser2';
import { DocumentWindow } from './document-window.js';
import { piecesOf, type HtmlSource, type OnLink, type PageFacts } from './page-facts.js';
import { PageScanner } from './page-scanner.js';
import { TextCollector } from './text-collector.js';

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
