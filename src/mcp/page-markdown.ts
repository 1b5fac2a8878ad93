import { captureText, decodeHtml, isHtml, type CaptureBody } from '../html/index.js';
import { pageMarkdown } from '../markdown/index.js';

/** An HTML capture decoded as the crawl decoded it: the stored charset wins over a re-sniff. */
export function captureHtml(capture: CaptureBody): string {
  return decodeHtml(capture.body, capture.charset ? `text/html; charset=${capture.charset}` : capture.content_type).text;
}

/**
 * A capture as Markdown: its main content (src/markdown). A body that is not HTML is its own text; a page
 * whose Markdown comes out empty (too large, or nothing the converter could read) gives its text, with a
 * note saying why.
 */
export function captureMarkdown(capture: CaptureBody, url: string): { markdown: string; note?: string } {
  if (!isHtml(capture.content_type)) return { markdown: captureText(capture) };
  const page = pageMarkdown(captureHtml(capture), url);
  if (page.markdown.trim() !== '') return { markdown: page.markdown };
  return {
    markdown: captureText(capture),
    note: `no Markdown for this page (${page.reason ?? 'no main content found'}): this is the page text`,
  };
}
