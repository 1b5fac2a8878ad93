/** Pages as Markdown: a page's main content, for people and language models to read. Pure: no storage, no network. */
export { pageMarkdown, MARKDOWN_VERSION, MAX_MARKDOWN_HTML_CHARS, type PageMarkdown } from './page-markdown.js';
