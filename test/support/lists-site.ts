import { solidPng } from './png.js';
import { html, text, type Route } from './test-server.js';

// A small site for the UI's lists: pages with titles (one hostile, one long), an image, JSON,
// plain text, a 404 page, and many links to another host the crawl never fetches.

export const LISTS_HOSTILE_TITLE = '<script>alert(1)</script><img src=x onerror="alert(2)">';
export const LISTS_LONG_TITLE = `A title far longer than a line of the list ${'and longer '.repeat(20)}— the end`;
/** A host only linked to: more of its URLs are seen than the site has pages. */
export const LISTS_LINKED_HOST = 'http://linked.example';
export const LISTS_LINKED_URLS = Array.from({ length: 40 }, (_, i) => `${LISTS_LINKED_HOST}/x${i}`);
export const LISTS_PAGES = 6;

const escape = (value: string) => value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function listsSiteRoutes(): Record<string, Route> {
  const pages = Array.from({ length: LISTS_PAGES }, (_, i) => `/p/${i}`);
  return {
    '/': html(
      `<img src="/logo.png"> <a href="/a">a</a> <a href="/hostile">h</a> <a href="/long">l</a> <a href="/data.json">j</a> <a href="/notes.txt">n</a> <a href="/missing">m</a>
${pages.map((path) => `<a href="${path}">${path}</a>`).join(' ')}
${LISTS_LINKED_URLS.map((url) => `<a href="${url}">${url}</a>`).join(' ')}`,
      'Home of the lists',
    ),
    '/a': html('plain page a', 'Page A'),
    // The title as the page's markup spells it; the archive stores it decoded.
    '/hostile': html('hostile', escape(LISTS_HOSTILE_TITLE)),
    '/long': html('long', LISTS_LONG_TITLE),
    '/logo.png': { headers: { 'content-type': 'image/png' }, body: solidPng(4, 4, [200, 30, 30]) },
    '/data.json': { headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
    '/notes.txt': text('notes'),
    '/missing': { ...html('gone', 'Not found'), status: 404 },
    ...Object.fromEntries(pages.map((path, i) => [path, html(`page ${i}`, `Page ${i}`)])),
  };
}
