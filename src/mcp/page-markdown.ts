import { captureText, decodeHtml, isHtml, type CaptureBody } from '../html/index.js';

/** An HTML capture decoded as the crawl decoded it: the stored charset wins over a re-sniff. */
export function captureHtml(capture: CaptureBody): string {
  return decodeHtml(capture.body, capture.charset ? `text/html; charset=${capture.charset}` : capture.content_type).text;
}

/**
 * A capture as Markdown. A body that is not HTML is its own text. For HTML, this version has no
 * converter: the page text stands in (title, description, then the visible text, a sentence a line),
 * with a note that says so; `pageMarkdown(captureHtml(capture), url)` from src/markdown takes its place.
 */
export function captureMarkdown(capture: CaptureBody, _url: string): { markdown: string; note?: string } {
  if (!isHtml(capture.content_type)) return { markdown: captureText(capture) };
  return { markdown: captureText(capture), note: 'Markdown is not available in this version: this is the page text' };
}
