import { escapeAttribute } from './rewrite-html.js';

/** Pages replay serves instead of a capture; none loads or links to anything live. */

const page = (title: string, main: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeText(title)}</title></head><body>${main}</body></html>`;

/** A URL not in the archive: named as text, never as a link or anything the browser would load. */
export function notArchivedPage(url: string, uiOrigin: string): string {
  return page(
    'Not archived',
    `<main id="not-archived"><h1>Not archived</h1><p>This archive holds no capture of <code class="live-url">${escapeText(url)}</code>.</p>` +
      `<p><a href="${escapeAttribute(`${uiOrigin}/`)}" target="_top">Back to the archive</a></p></main>`,
  );
}

/** Anything that is not a replay path. */
export function notFoundPage(uiOrigin: string): string {
  return page(
    'Not found',
    `<main id="not-found"><h1>Not found</h1><p>Replay paths look like <code>/20260101000000/https://example.com/</code>.</p>` +
      `<p><a href="${escapeAttribute(`${uiOrigin}/`)}" target="_top">Back to the archive</a></p></main>`,
  );
}

/** A method other than GET, HEAD and POST: replay only reads. */
export function methodNotAllowedPage(uiOrigin: string): string {
  return page(
    'Method not allowed',
    `<main id="method-not-allowed"><h1>Method not allowed</h1><p>Replay answers GET and HEAD, and POST with the answer archived for the same POST; an archive takes nothing.</p>` +
      `<p><a href="${escapeAttribute(`${uiOrigin}/`)}" target="_top">Back to the archive</a></p></main>`,
  );
}

/** A Host header naming another site: a DNS-rebinding page, or an address crawlite serve did not print. */
export function misdirectedPage(): string {
  return page(
    'Misdirected request',
    `<main id="misdirected"><h1>Unknown Host header</h1><p>Open the address crawlite serve printed.</p></main>`,
  );
}

/** A service worker's script: an archived one would answer for every capture on the replay origin. */
export function serviceWorkerRefusedPage(): string {
  return page(
    'Service workers refused',
    `<main id="service-worker-refused"><h1>Service workers refused</h1><p>Replay registers no service worker.</p></main>`,
  );
}

/** Replay itself failed (the archive could not be read): said plainly, without a stack. */
export function replayFailedPage(uiOrigin: string): string {
  return page(
    'Replay failed',
    `<main id="replay-failed"><h1>Replay failed</h1><p>The archive could not be read for this request.</p>` +
      `<p><a href="${escapeAttribute(`${uiOrigin}/`)}" target="_top">Back to the archive</a></p></main>`,
  );
}

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}
