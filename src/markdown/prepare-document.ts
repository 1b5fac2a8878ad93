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

const BOILERPLATE =
  'nav, aside, script, style, noscript, template, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]';

/** Page headers and footers, by element or by the class and id names sites give them (Sphinx's `div.footer`, cookie banners). */
const OUTER_BOILERPLATE = 'header, footer, .footer, #footer, .site-footer, .related, [role=search]';

/**
 * Cookie and consent banners, by the names sites give them. A name is a weak sign (a page's wrapper may be
 * called `js-cookie-consent-root`), so only a short element goes: on the article-extraction benchmark,
 * removing every match cost 0.016 of F1 (whole articles lost); a banner is a sentence or two and buttons.
 */
const BANNERS = '[id*=cookie], [class*=cookie], [id*=consent], [class*=consent]';
const BANNER_MAX_CHARS = 1000;

/**
 * What a page marks as around its content, taken out before anything reads it: navigation and asides
 * anywhere, and the page's own header and footer (those inside an article or main stay: they hold its title and byline).
 */
export function dropBoilerplate(root: DomElement | DomDocument): void {
  for (const element of [...root.querySelectorAll(BOILERPLATE)]) element.remove();
  for (const element of [...root.querySelectorAll(OUTER_BOILERPLATE)]) {
    if (!element.closest('article, main, [role=main]')) element.remove();
  }
  for (const element of [...root.querySelectorAll(BANNERS)]) {
    if ((element.textContent ?? '').length <= BANNER_MAX_CHARS && !element.closest('article, main, [role=main]')) element.remove();
  }
}
