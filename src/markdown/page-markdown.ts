import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import { createConverter } from './markdown-converter.js';
import type { DomDocument, DomElement } from './dom-shapes.js';
import { absolutizeLinks, dropBoilerplate } from './prepare-document.js';

/** A page's main content, as GitHub-flavoured Markdown and as plain text. */
export interface PageMarkdown {
  title: string | null;
  markdown: string;
  text: string;
  /** Why the Markdown is empty though the page is not (too large, or the page could not be read); absent otherwise. */
  reason?: string;
}

/** Bigger pages are left without Markdown: parsing them into a DOM would cost seconds and hundreds of MB. */
export const MAX_MARKDOWN_HTML_CHARS = 5 * 1024 * 1024;

/** Bumped whenever the same HTML would give different Markdown, so stored Markdown of an older version is made again. */
export const MARKDOWN_VERSION = 1;

let converter: TurndownService | undefined;

function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function collapse(text: string): string {
  return text
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/**
 * The main content of a page (navigation, sidebars, footers and banners left out, by Readability) as
 * Markdown with absolute links; the whole body when Readability finds no article. Never throws: a page
 * too large or one that cannot be read gives empty Markdown and a reason.
 */
export function pageMarkdown(html: string, url: string): PageMarkdown {
  if (html.length > MAX_MARKDOWN_HTML_CHARS) {
    return { title: null, markdown: '', text: '', reason: `page larger than ${MAX_MARKDOWN_HTML_CHARS} characters` };
  }
  try {
    const document = parseHTML(html).document as unknown as DomDocument;
    absolutizeLinks(document, url);
    dropBoilerplate(document);
    const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
    // Readability changes the document it reads: the fallback needs the body as it was.
    const fallback = document.body ? (document.body.cloneNode(true) as DomElement) : null;
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
      charThreshold: 200,
      // Kept for the code blocks' languages (language-x, highlight-x); Readability drops classes by default.
      keepClasses: true,
    }).parse();
    converter ??= createConverter();
    const title = article?.title?.trim() || pageTitle;
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      return { title, markdown: tidy(converter.turndown(article.content)), text: collapse(article.textContent ?? '') };
    }
    if (!fallback) return { title, markdown: '', text: '' };
    return {
      title,
      markdown: tidy(converter.turndown(fallback as unknown as TurndownService.Node)),
      text: collapse(fallback.textContent ?? ''),
    };
  } catch (error) {
    return {
      title: null,
      markdown: '',
      text: '',
      reason: `could not read the page: ${(error as Error).message ?? String(error)}`.slice(0, 300),
    };
  }
}
