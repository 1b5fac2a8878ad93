import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import { createConverter } from './markdown-converter.js';
import type { DomDocument, DomElement } from './dom-shapes.js';
import {
  absolutizeLinks,
  calloutsAsQuotes,
  dropBoilerplate,
  dropHeadingIds,
  keepNotes,
  orphanRowsAsBlocks,
  unwrapBareSections,
} from './prepare-document.js';

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
export const MARKDOWN_VERSION = 2;

let converter: TurndownService | undefined;

/** The page as a DOM, its links absolute and what surrounds its content taken out. */
function preparedDocument(html: string, url: string): DomDocument {
  const document = parseHTML(html).document as unknown as DomDocument;
  absolutizeLinks(document, url);
  dropBoilerplate(document);
  keepNotes(document);
  dropHeadingIds(document);
  unwrapBareSections(document);
  calloutsAsQuotes(document);
  return document;
}

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

/** Text as its words, lower case, one space apart: to compare a heading with a title or another heading. */
const words = (text: string) =>
  text
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .toLowerCase();

/**
 * Whether a heading and the page's title say the same: one holds the other's words, in order (Sphinx's
 * "Built-in Functions — Python 3.11 documentation", Node.js's "Path | Node.js v20 Documentation").
 */
function sameAsTitle(heading: string, title: string): boolean {
  const [a, b] = [words(heading), words(title)];
  return a !== '' && b !== '' && (` ${b} `.includes(` ${a} `) || ` ${a} `.includes(` ${b} `));
}

/**
 * Readability's article (strings only: its title, content as HTML, text) and the page's `<title>`. A function
 * of its own so that the page's DOM is garbage once it returns, before Turndown parses the article into another.
 */
function readArticle(
  html: string,
  url: string,
): { pageTitle: string | null; heading: string | null; article: ReturnType<Readability['parse']> } {
  const document = preparedDocument(html, url);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  // Taken before Readability, which removes the heading that repeats the page's title (the first <h1> or <h2>).
  const first = document.querySelector('h1, h2') as (DomElement & { outerHTML: string }) | null;
  const heading = first && pageTitle && sameAsTitle(first.textContent ?? '', pageTitle) ? first.outerHTML : null;
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
    charThreshold: 200,
    // Kept for the code blocks' languages (language-x, highlight-x); Readability drops classes by default.
    keepClasses: true,
    serializer: (node) => {
      const article = node as unknown as DomElement & { innerHTML: string };
      orphanRowsAsBlocks(article, document);
      return article.innerHTML;
    },
  }).parse();
  return { pageTitle, heading, article };
}

const headingText = (line: string) => words(line.replace(/^#+\s*/, ''));

/** The page's own heading first, as Markdown, when the article left it out (Readability drops one that repeats the title). */
function withHeading(markdown: string, heading: string | null): string {
  if (!heading) return markdown;
  const line = tidy(converter!.turndown(heading));
  if (!/^#{1,2} \S/.test(line) || line.includes('\n')) return markdown;
  const text = headingText(line);
  const headings = markdown.match(/^#{1,6} .*$/gm) ?? [];
  if (headings.some((each) => headingText(each) === text)) return markdown;
  return markdown ? `${line}\n\n${markdown}` : line;
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
    const { pageTitle, heading, article } = readArticle(html, url);
    converter ??= createConverter();
    const title = article?.title?.trim() || pageTitle;
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      return {
        title,
        markdown: withHeading(tidy(converter.turndown(article.content)), heading),
        text: collapse(article.textContent ?? ''),
      };
    }
    // Readability changed the document it read: the whole body is read from the page parsed again. Parsing
    // twice here, rather than cloning the body before Readability on every page, keeps one DOM per page in memory.
    const fallback = preparedDocument(html, url).body;
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
