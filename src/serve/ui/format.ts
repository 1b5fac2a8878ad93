import { html, type Html } from './html.js';
export { formatBytes } from '../../format-bytes.js';

export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** At most `max` characters (code points, so no pair is split) of `text`, with … when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** The UI's link to a capture's page. */
export const captureHref = (url: string): string => `/capture?url=${encodeURIComponent(url)}`;

/** `2026-11-26T23:59:14.123Z` as `2026-11-26 23:59:14 UTC`: what a reader sees without script. */
export function utcText(iso: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/**
 * A time as the UI shows it: `<time datetime>` whose text the page's script turns into the reader's
 * local time (the UTC value on hover); the server writes it in UTC, so it reads without script too.
 */
export function timeTag(iso: string | null | undefined, id?: string): Html {
  if (!iso) return html`—`;
  return html`<time${id ? html` id="${id}"` : ''} datetime="${iso}" title="${iso}">${utcText(iso)}</time>`;
}
