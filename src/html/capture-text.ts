import { decodeText, isHtml } from './decode-text.js';
import { extractPage } from './extract-page.js';
import { decodeHtml } from './sniff-charset.js';

/** What a capture's text is made of: its body, and how to read it. */
export interface CaptureBody {
  content_type: string | null;
  /** The encoding the crawl decoded an HTML body with. */
  charset: string | null;
  body: Buffer;
}

/**
 * A capture as lines of text to diff. HTML is read as the crawl reads it for search
 * (the title, the description, then the visible text), each heading on a line of its
 * own and one sentence a line: the text comes out as one run of words, and a sentence
 * per line keeps an edit to one sentence a change of one line. Other bodies are decoded as text as they are.
 */
export function captureText(capture: CaptureBody): string {
  if (!isHtml(capture.content_type)) return withEndOfLine(decodeText(capture.body, capture.charset));
  // The stored charset is what the crawl decoded with: it wins over a re-sniff.
  const { text: html } = decodeHtml(capture.body, capture.charset ? `text/html; charset=${capture.charset}` : capture.content_type);
  const facts = extractPage(html, () => {}, { text: true });
  const lines: string[] = [];
  if (facts.title) lines.push(`title: ${facts.title}`);
  if (facts.text?.description) lines.push(`description: ${facts.text.description}`);
  if (lines.length) lines.push('');
  lines.push(...paragraphs(facts.text?.body ?? '', facts.text?.headings ?? '').flatMap(sentences));
  return withEndOfLine(lines.join('\n'));
}

/** The text cut before and after each heading, found in order: headings are in the text too. */
function paragraphs(text: string, headings: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const heading of headings.split('\n')) {
    const at = heading === '' ? -1 : text.indexOf(heading, from);
    if (at < 0) continue;
    parts.push(text.slice(from, at), heading);
    from = at + heading.length;
  }
  parts.push(text.slice(from));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** Splits after a sentence's end (., !, ? or a CJK full stop, then a space or not). */
const sentences = (text: string): string[] => (text === '' ? [] : text.split(/(?<=[.!?])\s+|(?<=[。！？])/u).filter((line) => line !== ''));

const withEndOfLine = (text: string): string => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
