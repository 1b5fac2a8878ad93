import { decodeHtml, isHtml } from '../../html/index.js';
import { pageMarkdown } from '../../markdown/index.js';
import type { ArchivedPage } from '../../storage/reader/index.js';
import { html, type Html } from './html.js';
import { formatBytes } from './format.js';
import type { UiContext } from './ui-context.js';

/** Markdown shown on the page, in characters; the rest is in page_markdown or `export --markdown`. */
const MARKDOWN_SHOWN_CHARS = 256 * 1024;

/**
 * An HTML capture's main content as Markdown, shown as text (escaped, never rendered: it comes from the
 * archived page): the stored Markdown when `crawlite markdown` made it, else made for this view.
 */
export function markdownSection(context: UiContext, page: ArchivedPage): Html | '' {
  if (!isHtml(page.contentType) || page.status < 200 || page.status > 299) return '';
  const stored = context.archive.markdown(page.url, page.fetchedAt);
  const made = stored ?? pageMarkdown(decodeHtml(page.body, page.contentType).text, page.url);
  const origin = stored
    ? html`<p class="muted">Stored in page_markdown.</p>`
    : html`<p class="muted">Made for this view; <code>crawlite markdown</code> stores it in page_markdown.</p>`;
  if (!made.markdown) {
    return html`<h2>Markdown</h2>
<p class="muted" id="markdown">No Markdown${made.reason ? html`: ${made.reason}` : ''}.</p>
`;
  }
  const cut = made.markdown.length > MARKDOWN_SHOWN_CHARS;
  const shown = cut ? made.markdown.slice(0, MARKDOWN_SHOWN_CHARS) : made.markdown;
  return html`<h2>Markdown</h2>
${origin}${cut ? html`<p class="muted">The first ${formatBytes(MARKDOWN_SHOWN_CHARS)} of ${formatBytes(made.markdown.length)}.</p>` : ''}<pre id="markdown">${shown}</pre>
`;
}
