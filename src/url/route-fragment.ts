import type { NormalizedUrl } from './normalize-url.js';

/**
 * Whether a fragment (without its '#') is a hash router's path: `#/docs/intro` (docsify, Vue and
 * Angular in hash mode) or a hashbang `#!/item/3`. Any other fragment names a place in the page. The
 * bare `#/`, `#!` and `#!/` are not: they name the app's home, what the document shows without them
 * (and `href="#!"` is a common do-nothing link, on every page of a site).
 */
export function isRouteFragment(fragment: string): boolean {
  if (!fragment.startsWith('/') && !fragment.startsWith('!')) return false;
  return fragment.replace(/^!?\/?/, '') !== '';
}

/**
 * A normalised URL with a fragment put back: the page a hash router shows at it. The fragment is
 * percent-encoded as WHATWG serialises it; the key is the URL's own key with the fragment, so each
 * route is one row and its document is still the URL without it.
 */
export function withFragment(normalized: NormalizedUrl, fragment: string): NormalizedUrl {
  const url = new URL(normalized.url);
  url.hash = fragment;
  // An empty fragment ('#' alone) serialises as nothing: the document itself.
  if (url.hash === '') return normalized;
  return { ...normalized, url: normalized.url + url.hash, key: normalized.key + url.hash };
}

/** The URL without its fragment: the document a route is shown by. */
export function documentOf(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
