import { extractCssUrls } from '../../html/index.js';
import type { RewriteUrl } from './rewrite-url.js';

/**
 * Rewrites every `url(...)` and `@import "..."` of a style sheet (or a `style` attribute) in place,
 * with the crawler's own CSS scanner, so replay rewrites exactly the URLs the crawl fetched. Each
 * rewritten URL is written back as a double-quoted CSS string; the rest is left byte for byte.
 */
export function rewriteCss(css: string, rewrite: RewriteUrl): string {
  let out = '';
  let copied = 0;
  extractCssUrls(css, (url, start, end) => {
    const rewritten = rewrite(url);
    if (rewritten === url) return;
    out += css.slice(copied, start) + cssString(rewritten);
    copied = end;
  });
  return copied === 0 ? css : out + css.slice(copied);
}

/** A CSS string of `value`: quotes, backslashes and newlines escaped. */
function cssString(value: string): string {
  return `"${value.replace(/[\\"\n\r\f]/g, (c) => (c === '\\' || c === '"' ? `\\${c}` : `\\${c.charCodeAt(0).toString(16)} `))}"`;
}
