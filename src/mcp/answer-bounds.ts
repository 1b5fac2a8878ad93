import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CrawliteError } from '../crawlite-error.js';

/** Bytes of one tool answer at most: a model's context is small, and a page of any size must not fill it. */
export const ANSWER_BYTES = 200 * 1024;

/** Cuts `text` to at most `maxBytes` of UTF-8, never inside a character; says whether it cut. */
export function cutToBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, cut: false };
  // A continuation byte (10xxxxxx) is no place to cut: step back to the start of its character.
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/** A tool's answer: its text, cut at ANSWER_BYTES with a last line that says so. */
export function textAnswer(text: string): CallToolResult {
  const note = `\n[cut at ${ANSWER_BYTES / 1024} KB of ${Buffer.byteLength(text, 'utf8').toLocaleString('en-US')} bytes]`;
  const { text: kept, cut } = cutToBytes(text, ANSWER_BYTES - Buffer.byteLength(note));
  return { content: [{ type: 'text', text: cut ? kept + note : text }] };
}

/** A tool's answer as JSON, pretty enough to read, bounded as textAnswer. */
export function jsonAnswer(value: unknown): CallToolResult {
  return textAnswer(JSON.stringify(value, null, 1));
}

/** An MCP error result: the model reads why and may try again; the server carries on. */
export function errorAnswer(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Runs a tool's work and answers with what it returned; a CrawliteError (a refused query, a timeout, a
 * page not archived) becomes an error result with its message, and so does anything else, named as such.
 */
export async function answering(work: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CrawliteError) return errorAnswer(error.message);
    return errorAnswer(`crawlite could not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
}
