import { NONE_RECEIVED, ORIGINAL_PREFIX } from '../export/http-blocks.js';

const PREFIX = ORIGINAL_PREFIX.toLowerCase();
const nameOf = (line: string) => line.slice(0, Math.max(0, line.indexOf(':'))).trim();
const valueOf = (line: string) => line.slice(line.indexOf(':') + 1).trim();

/**
 * The header block as received, from one crawlite export wrote: there the
 * payload is the decoded body, so Content-Encoding and Transfer-Encoding were
 * renamed `X-Crawlite-Original-<name as received>` in their place, and
 * Content-Length was set to the payload's length with the one received after
 * it (`none` when none was). Undone here; a block without those names (from
 * any other writer) comes back as it is.
 */
export function originalHeaderBlock(block: Buffer): Buffer {
  const text = block.toString('latin1');
  if (!text.toLowerCase().includes(PREFIX)) return block;
  const out: string[] = [];
  for (const line of text.split('\r\n')) {
    if (line === '') continue;
    const name = nameOf(line);
    if (!name.toLowerCase().startsWith(PREFIX)) {
      out.push(line);
      continue;
    }
    const received = name.slice(PREFIX.length);
    const value = valueOf(line);
    const previous = out[out.length - 1];
    if (previous !== undefined && nameOf(previous).toLowerCase() === received.toLowerCase()) {
      // The line before was written over (Content-Length): the value received goes back, or the line goes.
      if (value === NONE_RECEIVED) out.pop();
      else out[out.length - 1] = `${nameOf(previous)}: ${value}`;
    } else {
      out.push(`${received}: ${value}`);
    }
  }
  return Buffer.from(out.map((line) => `${line}\r\n`).join(''), 'latin1');
}
