import type { DomDocument, DomElement } from './dom-shapes.js';

/** Links and images pointing at absolute URLs, so the Markdown reads the same wherever it is saved. */
export function absolutizeLinks(document: DomDocument, pageUrl: string): void {
  let base = pageUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // A bad <base> is ignored, as browsers do.
    }
  }
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)!;
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        // Left as written: a URL that does not parse has no absolute form.
      }
    }
  }
}

/** Navigation by element, role and the names sites give skip links (Node.js's docs, WordPress and Sphinx themes). */
const BOILERPLATE =
  'nav, aside, script, style, noscript, template, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], a.skip-to-content, a.skip-link, a.skiplink';

/** Page headers and footers, by element or by the class and id names sites give them (Sphinx's `div.footer`, cookie banners). */
const OUTER_BOILERPLATE = 'header, footer, .footer, #footer, .site-footer, .related, [role=search]';

/**
 * Cookie and consent banners, by the names sites give them. A name is a weak sign (a page's wrapper may be
 * called `js-cookie-consent-root`), so only a short element goes: on the article-extraction benchmark,
 * removing every match cost 0.016 of F1 (whole articles lost); a banner is a sentence or two and buttons.
 */
const BANNERS = '[id*=cookie], [class*=cookie], [id*=consent], [class*=consent]';
const BANNER_MAX_CHARS = 1000;

/** Footnotes, citations and endnotes, which docutils (Sphinx) and others write as <aside>: part of the text, not around it. */
const NOTES =
  'aside.footnote, aside.footnote-list, aside.citation, aside.citation-list, aside[role=doc-footnote], aside[role=doc-endnotes]';

/**
 * What a page marks as around its content, taken out before anything reads it: navigation and asides
 * (but footnotes) anywhere, and the page's own header and footer (those inside an article or main stay:
 * they hold its title and byline).
 */
export function dropBoilerplate(root: DomElement | DomDocument): void {
  for (const element of [...root.querySelectorAll(BOILERPLATE)]) if (!element.matches(NOTES)) element.remove();
  for (const element of [...root.querySelectorAll(OUTER_BOILERPLATE)]) {
    if (!element.closest('article, main, [role=main]')) element.remove();
  }
  for (const element of [...root.querySelectorAll(BANNERS)]) {
    if ((element.textContent ?? '').length <= BANNER_MAX_CHARS && !element.closest('article, main, [role=main]')) element.remove();
  }
}

/**
 * Readability removes every <aside> it finds in the article: a footnote's becomes a <section>, with its
 * class. Not a <div>: Readability's clean-up drops a short <div> that is mostly links, as a footnote often is.
 */
export function keepNotes(document: DomDocument): void {
  for (const aside of [...document.querySelectorAll(NOTES)]) {
    const section = document.createElement('section');
    section.setAttribute('class', aside.getAttribute('class') ?? '');
    while (aside.firstChild) section.appendChild(aside.firstChild);
    aside.replaceWith(section);
  }
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Section ids made from their heading's text (Sphinx's `new-features-related-to-type-hints`) are dropped:
 * Readability reads ids as hints of a section's role, and a word in a title (related, header, comment, menu)
 * made it throw the whole section away. Only an id of three words or more that spells its heading goes; a
 * one-word `comments` or `related` still says what the element is. Ids never reach the Markdown.
 */
export function dropHeadingIds(document: DomDocument): void {
  for (const heading of [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]) {
    const section = heading.parentElement;
    if (!section) continue;
    const id = section.getAttribute('id');
    if (!id) continue;
    const titleWords = words(heading.textContent ?? '');
    if (titleWords.length >= 3 && words(id).join(' ') === titleWords.join(' ')) section.removeAttribute('id');
  }
}

/**
 * A <section> with no class or id around a heading and its text (Node.js's API docs put every heading in
 * one) is unwrapped into its parent: Readability picks one best element and keeps its siblings only when
 * they score high enough on their own, so a page of sibling sections came out as one section of many. A
 * section with a class or id keeps its wrapper, and the hints about its role that Readability reads.
 */
export function unwrapBareSections(document: DomDocument): void {
  for (const section of [...document.querySelectorAll('section')].reverse()) {
    if (section.getAttribute('class') || section.getAttribute('id')) continue;
    while (section.firstChild) section.before(section.firstChild);
    section.remove();
  }
}

/** Notes set apart from the text: admonitions (Sphinx, MkDocs), Sphinx's version notes and implementation details, Node.js's stability notes. */
const CALLOUTS = 'div.admonition, div.versionadded, div.versionchanged, div.deprecated, div.impl-detail, div.api_stability';

/**
 * A note set apart from the text becomes a <blockquote>: Readability's clean-up judged such a <div> by its
 * links and length and dropped many (a "See also" box is mostly links), and a quote is how Markdown sets a
 * note apart.
 */
export function calloutsAsQuotes(document: DomDocument): void {
  for (const callout of [...document.querySelectorAll(CALLOUTS)]) {
    if (callout.closest('pre, table')) continue;
    const quote = document.createElement('blockquote');
    quote.setAttribute('class', callout.getAttribute('class') ?? '');
    while (callout.firstChild) quote.appendChild(callout.firstChild);
    callout.replaceWith(quote);
  }
}

/**
 * Rows and cells that Readability left without their table (it turns a layout table, such as Sphinx's module
 * index, into a <div> and keeps its rows) become <div>s: an HTML parser drops a row outside a table, and the
 * module index came out as one line. Run on the article as it is serialized.
 */
export function orphanRowsAsBlocks(root: DomElement, document: DomDocument): void {
  const orphans = [...root.querySelectorAll('thead, tbody, tfoot, tr, td, th')].filter((part) => !part.closest('table'));
  for (const element of orphans) {
    const div = document.createElement('div');
    while (element.firstChild) div.appendChild(element.firstChild);
    element.replaceWith(div);
  }
}
