import type { FetchReport } from '../library/index.js';
import { formatBytes } from './format-report.js';

/** One line per fetch, as the seed crawler printed them: status, URL, size, type, links found and new. */
export function formatFetch(fetch: FetchReport): string {
  const status = fetch.status ?? fetch.state.toUpperCase();
  const parts = [`${status} ${fetch.url}`];
  if (fetch.location) parts.push(`-> ${fetch.location}`);
  if (fetch.size !== undefined) parts.push(formatBytes(fetch.size));
  if (fetch.contentType) parts.push(fetch.contentType);
  if (fetch.linksFound) parts.push(`${fetch.linksFound} links, ${fetch.linksNew} new`);
  if (fetch.tries > 1) parts.push(`${fetch.tries} tries`);
  if (fetch.renderNotes?.length) parts.push(`render capped: ${fetch.renderNotes.join(', ')}`);
  if (fetch.error) parts.push(`[${fetch.error.code}] ${fetch.error.message}`);
  return parts.join('  ');
}
