import { captureText, type CaptureBody } from '../html/index.js';

/**
 * A capture as Markdown. Until a Markdown converter is wired in here, its text stands in (title,
 * description, then the visible text, a sentence a line), with a note that says so.
 */
export function captureMarkdown(capture: CaptureBody, _url: string): { markdown: string; note?: string } {
  return { markdown: captureText(capture), note: 'Markdown is not available in this version: this is the page text' };
}
