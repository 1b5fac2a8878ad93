import type { IncomingHttpHeaders } from 'node:http';

// Who the UI origin answers. Every page of it reads the archive, and some run a query, a search or a
// diff for seconds: any page open in the same browser could send those (an <img>, a no-cors fetch)
// and, without reading a byte of the answer, learn the archive's contents from how long or whether
// it loaded. Replayed pages are such pages too: the replay origin is another port of this host, so
// the browser calls it `same-site`, never `same-origin`. Fetch Metadata (Sec-Fetch-*) says who asks;
// a browser sets it and no page can forge it.

/** Pages a link or a redirect from elsewhere may open, as the top document: they run no query. */
const OPEN_TO_NAVIGATION = new Set(['/', '/replay']);

/**
 * Why the request is refused, or undefined when it is answered. Answered: a request from the UI's own
 * pages (`same-origin`), one the user made by typing or a bookmark (`none`), one carrying no Fetch
 * Metadata at all (curl, scripts, and browsers older than 2023 that send none: see docs/security.md),
 * static assets, and a top-level navigation from elsewhere to the overview or a replay frame page (how
 * replay's "back to the archive" links and its redirects arrive). An Origin header, when sent, must
 * be the UI's own (`http://` and the Host the request was sent to).
 */
export function refusedFromElsewhere(headers: IncomingHttpHeaders, path: string): string | undefined {
  if (path.startsWith('/assets/')) return undefined;
  const origin = headers.origin;
  if (origin !== undefined && origin !== `http://${headers.host ?? ''}`) return `a request from ${origin.slice(0, 100)}`;
  const site = headers['sec-fetch-site'];
  if (site === undefined || site === 'same-origin' || site === 'none') return undefined;
  const topLevel = headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document';
  if (topLevel && OPEN_TO_NAVIGATION.has(path)) return undefined;
  return `a ${site} request`;
}
